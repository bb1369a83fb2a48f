/**
 * `npm run bench`: every benchmark suite in one run, so ratios compare figures measured
 * on the same machine at the same time. `npm run bench -- lisp` runs one suite.
 */
import type { BenchRow } from './types.ts';

/** rows for the table, or (payload-store) lines printed as they are */
type Suite = () => Promise<BenchRow[] | string>;

const suites: Record<string, () => Promise<Suite>> = {
  lisp: async () => (await import('./lisp.ts')).benchLisp,
  devserver: async () => (await import('./devserver.ts')).benchDevServer,
  storage: async () => (await import('./devserver.ts')).benchDevServerStorage,
  mission: async () => (await import('./mission.ts')).benchMission,
  plans: async () => (await import('./plans.ts')).benchPlans,
  telemetry: async () => (await import('./telemetry.ts')).benchTelemetry,
  audit: async () => (await import('./audit.ts')).benchAudit,
  'history-reads': async () => (await import('./history-reads.ts')).benchHistoryReads,
  temporal: async () => (await import('./temporal.ts')).benchTemporal,
  sandbox: async () => (await import('./sandbox.ts')).benchSandbox,
  capacity: async () => (await import('./capacity.ts')).benchCapacity,
  'large-payloads': async () => (await import('./large-payloads.ts')).benchLargePayloads,
  'payload-store': async () => (await import('./payload-store.ts')).benchPayloadStores,
};

function fmt(n: number | undefined): string {
  if (n === undefined) return '';
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(4);
}

function printRows(suite: string, rows: BenchRow[]): void {
  console.log(`\n## ${suite}`);
  const header = ['benchmark', 'median ms', 'baseline ms', 'ratio', 'note'];
  const lines = rows.map((r) => [
    r.name,
    fmt(r.median_ms),
    fmt(r.baseline_ms),
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(row(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(row(l));
}

const wanted = process.argv.slice(2);
const failures: string[] = [];
for (const [name, load] of Object.entries(suites)) {
  if (wanted.length && !wanted.includes(name)) continue;
  const rows = await (await load())();
  if (typeof rows === 'string') console.log(`\n## ${name}\n${rows}`);
  else {
    printRows(name, rows);
    for (const r of rows) if (r.failed) failures.push(`${name}: ${r.name}: ${r.failed}`);
  }
}
if (failures.length) {
  // a figure past its bound is a regression: say so loudly, and fail the run
  console.log(`\n## REGRESSIONS (${failures.length})\n${failures.map((f) => `- ${f}`).join('\n')}`);
  process.exit(1);
}
process.exit(0);
