/**
 * The console's audits share one replay worker with the mission workflow code (see
 * src/history/replayer.ts): the audit page bundled the workflow code (or read it from the
 * bundle cache) and built a replay worker for every view. Both are made on the first audit
 * or the first read of a closed run (the same worker and bundle as the history reader's,
 * src/history/replay.ts), loaded then (the console itself starts without
 * @temporalio/worker), and the worker stops after a few seconds without work.
 */
import type { Client } from '@temporalio/client';
import type { AuditOptions } from '../audit/mission/audit.ts';
import type { HistoryReplayer } from '../history/replayer.ts';

export class ConsoleAudits {
  private made: Promise<{ workflowBundle: { code: string }; replayer: HistoryReplayer }> | null = null;

  /** @param _client the console's client (kept in the signature for callers; the audits do not read it yet) */
  constructor(_client: Client) {}

  /** Options for an audit from the console: the shared bundle and replay worker. */
  async options(): Promise<AuditOptions> {
    this.made ??= this.make();
    return this.made.catch((err: Error) => {
      this.made = null;
      throw err;
    });
  }

  async close(): Promise<void> {
    const made = this.made;
    this.made = null;
    await (await made?.catch(() => null))?.replayer.close();
  }

  private async make() {
    // the process's reading replay worker (src/history/replay.ts): one worker replays closed runs to read them and audits them
    const { readerBundle, readReplayer } = await import('../history/replay.ts');
    const [workflowBundle, replayer] = await Promise.all([readerBundle(), readReplayer()]);
    return { workflowBundle, replayer };
  }
}
