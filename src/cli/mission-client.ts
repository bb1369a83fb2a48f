/**
 * What every mission command needs: a connection, a handle by workflow id, and one-line
 * errors for unknown ids, finished missions and rejected updates.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
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

/** A handle to an existing mission; unknown ids fail with a clear message. */
export async function missionHandle(client: Client, id: string): Promise<WorkflowHandle> {
  const handle = client.workflow.getHandle(id);
  try {
    await handle.describe();
  } catch (err) {
    throw explain(err, id);
  }
  return handle;
}

/** Turns SDK errors about a mission into one-line CLI errors. */
export function explain(err: unknown, id: string): Error {
  if (err instanceof CliError) return err;
  if (err instanceof WorkflowNotFoundError) return new CliError(`no mission with id ${id}`);
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause as Error | undefined;
    return new CliError(`rejected: ${cause?.message ?? err.message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/already completed|workflow execution already completed|not running/i.test(message)) {
    return new CliError(`mission ${id} has already finished`);
  }
  return new CliError(message);
}

/** Runs `fn` with a handle, mapping every failure through {@link explain}. */
export async function onMission<T>(id: string, fn: (handle: WorkflowHandle, client: Client) => Promise<T>): Promise<T> {
  return withClient(async (client) => {
    const handle = await missionHandle(client, id);
    try {
      return await fn(handle, client);
    } catch (err) {
      throw explain(err, id);
    }
  });
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
