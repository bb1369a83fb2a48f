/**
 * The console's audits share one replay worker with the mission workflow code (see
 * src/audit/replayer.ts): the audit page bundled the workflow code (or read it from the
 * bundle cache) and built a replay worker for every view. Both are made on the first audit,
 * loaded then (the console itself starts without @temporalio/worker), and the worker stops
 * after a few seconds without audits.
 */
import type { Client } from '@temporalio/client';
import type { AuditOptions } from '../audit/index.ts';
import type { HistoryReplayer } from '../audit/replayer.ts';

export class ConsoleAudits {
  private made: Promise<{ workflowBundle: { code: string }; replayer: HistoryReplayer }> | null = null;

  constructor(private readonly client: Client) {}

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
    const [{ bundleMissionWorkflows }, { HistoryReplayer }, { silentSpanSinks }] = await Promise.all([import('../worker/index.ts'), import('../audit/replayer.ts'), import('../telemetry/setup.ts')]);
    const workflowBundle = await bundleMissionWorkflows();
    const replayer = new HistoryReplayer({ workflowBundle, sinks: silentSpanSinks, dataConverter: this.client.options.dataConverter });
    return { workflowBundle, replayer };
  }
}
