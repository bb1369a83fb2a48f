/**
 * What every mission command needs: a connection, a mission by workflow id (through the
 * client library, src/client/missions.ts), and one-line errors for unknown ids, finished
 * missions and rejected updates.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { type MissionHandle, MissionClosed, MissionNotFound, MissionRejected, NoVerdict, NotAMission, getMission } from '../client/missions.ts';
import { connectClient, resolveTarget, type Connected } from '../temporal/connection.ts';
import { CliError } from './errors.ts';

export async function withClient<T>(fn: (client: Client, conn: Connected) => Promise<T>): Promise<T> {
  const target = resolveTarget();
  let conn: Connected;
  try {
    conn = await connectClient(target);
  } catch (err) {
    throw new CliError(`cannot reach Temporal at ${target.address}: ${(err as Error).message}. Start one with \`navigator dev\` or set TEMPORAL_ADDRESS.`);
  }
  try {
    return await fn(conn.client, conn);
  } finally {
    await conn.close();
  }
}

/** Turns client and SDK errors about a mission into one-line CLI errors. */
export function explain(err: unknown, id: string): Error {
  if (err instanceof CliError) return err;
  if (err instanceof MissionNotFound || err instanceof NotAMission || err instanceof MissionClosed || err instanceof NoVerdict) return new CliError(err.message);
  if (err instanceof MissionRejected) return new CliError(`rejected: ${err.message}`);
  if (err instanceof WorkflowNotFoundError) return new CliError(`no mission with id ${id}`);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause as Error | undefined;
    return new CliError(`rejected: ${cause?.message ?? err.message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(message);
}

/**
 * Runs `fn` with an existing mission, mapping every failure through {@link explain}.
 * With `running: true` a finished mission is refused before anything is sent.
 */
export async function onMission<T>(id: string, fn: (mission: MissionHandle, client: Client) => Promise<T>, opts: { running?: boolean } = {}): Promise<T> {
  return withClient(async (client) => {
    const mission = getMission(client, id);
    try {
      await mission.check(opts);
    } catch (err) {
      throw explain(err, id);
    }
    try {
      return await fn(mission, client);
    } catch (err) {
      // The mission exists (describe found it): "not found" now means it closed meanwhile.
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
    Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    // already installed by an earlier call in this process
  }
}
