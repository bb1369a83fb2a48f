/**
 * What every mission command needs: a connection, a handle by workflow id, and one-line
 * errors for unknown ids, finished missions and rejected updates.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { connectClient, resolveTarget, type Connected } from '../../temporal/connection.ts';
import { CliError } from '../errors.ts';
import { type MissionHandle, MissionRejected, getMission } from '../../client/mission/client.ts';
import { PLAN_WORKFLOW } from '../../client/plan/client.ts';
import { closeReadReplayer, onFirstReplay } from '../../history/replay.ts';
import { WorkerUnavailableError } from '../../history/reader.ts';

// a closed run is read by replaying its history here: the replay worker's INFO logs stay off the output
onFirstReplay(() => quietTemporalLogs());

export async function withClient<T>(fn: (client: Client, conn: Connected) => Promise<T>): Promise<T> {
  const target = resolveTarget();
  let conn: Connected;
  try {
    conn = await connectClient(target);
  } catch (err) {
    throw new CliError(
      `cannot reach Temporal at ${target.address}: ${(err as Error).message}. Start one with \`navigator dev\` or set TEMPORAL_ADDRESS.`,
    );
  }
  try {
    return await fn(conn.client, conn);
  } finally {
    // a replay worker that read a closed run would keep the process alive for its idle seconds
    await Promise.all([conn.close(), closeReadReplayer()]);
  }
}

/** A handle to an existing mission and its Temporal status; unknown ids fail clearly. */
export async function missionHandle(client: Client, id: string): Promise<{ mission: MissionHandle; status: string }> {
  const mission = getMission(client, id);
  try {
    const description = await mission.workflow.describe();
    if (description.type === PLAN_WORKFLOW)
      throw new CliError(`${id} is a plan, not a mission: use \`navigator plan show ${id}\``);
    return { mission, status: description.status.name };
  } catch (err) {
    throw explain(err, id);
  }
}

/** Turns SDK errors about a mission into one-line CLI errors. */
export function explain(err: unknown, id: string): Error {
  if (err instanceof CliError) return err;
  if (err instanceof WorkflowNotFoundError) return new CliError(`no mission with id ${id}`);
  if (err instanceof MissionRejected) return new CliError(`rejected: ${err.message}`);
  if (err instanceof WorkerUnavailableError) return new CliError(`${id}: ${err.message}`);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause as Error | undefined;
    return new CliError(`rejected: ${cause?.message ?? err.message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(message);
}

/**
 * Runs `fn` with a handle, mapping every failure through {@link explain}. With
 * `running: true` a finished mission is refused before anything is sent.
 */
export async function onMission<T>(
  id: string,
  fn: (mission: MissionHandle) => Promise<T>,
  opts: { running?: boolean } = {},
): Promise<T> {
  return withClient(async (client) => {
    const { mission, status } = await missionHandle(client, id);
    if (opts.running && status !== 'RUNNING')
      throw new CliError(`mission ${id} has already finished (${status.toLowerCase()})`);
    try {
      return await fn(mission);
    } catch (err) {
      // The mission exists (describe found it): "not found" from an update means it closed meanwhile.
      if (err instanceof WorkflowNotFoundError) throw new CliError(`mission ${id} has already finished`);
      throw explain(err, id);
    }
  });
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Keeps the Temporal SDK's INFO logs (bundling, worker states) off the CLI's output. */
export async function quietTemporalLogs(): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  try {
    // core warnings (a replay failing in an audit) would land on stdout and break --json
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // already installed by an earlier call in this process
  }
}
