/**
 * The log of a worker run from the CLI (`navigator worker`, `navigator dev`): one line per
 * entry. The SDK's default printed each failure with its stack and metadata, so a typo in
 * another terminal (an unknown agent, a refused decision) put dozens of lines per event
 * into the dev terminal. NAVIGATOR_LOG=debug keeps the SDK's own full output.
 */
import type { LogEntry } from '@temporalio/worker';

/** The first line of what went wrong, from an entry's metadata (error or failure). */
function cause(meta: Record<string, unknown> | undefined): string | null {
  const e = meta?.error ?? meta?.failure;
  if (e === undefined || e === null) return null;
  const text =
    e instanceof Error
      ? e.message
      : typeof e === 'object' && 'message' in e
        ? String((e as { message: unknown }).message)
        : String(e);
  return text.split('\n')[0]!;
}

/** Where it happened: the workflow and the activity, when the entry names them. */
function where(meta: Record<string, unknown> | undefined): string {
  const parts = [
    meta?.workflowId && `workflow ${String(meta.workflowId)}`,
    meta?.activityType && `activity ${String(meta.activityType)}`,
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** One line: `HH:MM:SS LEVEL message (workflow W, activity A): cause`. */
export function logLine(entry: Pick<LogEntry, 'level' | 'message' | 'meta' | 'timestampNanos'>): string {
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toTimeString().slice(0, 8);
  const meta = entry.meta as Record<string, unknown> | undefined;
  const why = cause(meta);
  return `${time} ${entry.level} ${entry.message.split('\n')[0]}${where(meta)}${why ? `: ${why}` : ''}`;
}

/** Installs the one-line log for this process's Temporal runtime (before any worker). */
export async function installWorkerLog(): Promise<void> {
  if (process.env.NAVIGATOR_LOG === 'debug') return;
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  try {
    Runtime.install({ logger: new DefaultLogger('INFO', (entry) => process.stderr.write(`${logLine(entry)}\n`)) });
  } catch {
    // a runtime was installed already (a test, or a host that set its own)
  }
}
