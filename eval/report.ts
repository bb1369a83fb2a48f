/** The evaluation table and its summary: success rate and mean model calls per mission. */
import type { RunResult } from './runner.ts';

export interface Summary {
  runs: number;
  correct: number;
  successRate: number;
  meanModelCalls: number;
  meanPasses: number;
  tokens: number;
  inputTokens: number;
  outputTokens: number;
  /** mean model calls per mission of each run (run 1 on a cold worker, later runs warm), when there is more than one */
  byRun?: Array<{ run: number; missions: number; meanModelCalls: number }>;
}

export function summarize(results: readonly RunResult[]): Summary {
  const n = results.length;
  const sum = (f: (r: RunResult) => number) => results.reduce((a, r) => a + f(r), 0);
  const correct = results.filter((r) => r.correct).length;
  const runNumbers = [...new Set(results.map((r) => r.run))].sort((a, b) => a - b);
  return {
    runs: n,
    correct,
    successRate: n ? correct / n : 0,
    meanModelCalls: n ? sum((r) => r.modelCalls) / n : 0,
    meanPasses: n ? sum((r) => r.passes) / n : 0,
    tokens: sum((r) => r.tokens),
    inputTokens: sum((r) => r.inputTokens ?? 0),
    outputTokens: sum((r) => r.outputTokens ?? 0),
    ...(runNumbers.length > 1 ? { byRun: runNumbers.map((run) => byRun(results, run)) } : {}),
  };
}

function byRun(results: readonly RunResult[], run: number): { run: number; missions: number; meanModelCalls: number } {
  const of = results.filter((r) => r.run === run);
  return { run, missions: of.length, meanModelCalls: of.reduce((a, r) => a + r.modelCalls, 0) / of.length };
}

/** A plain-text table, one row per run, then the summary line. */
export function formatReport(model: string, results: readonly RunResult[]): string {
  const header = [
    'case',
    'run',
    'correct',
    'passes',
    'model calls',
    'tokens in',
    'tokens out',
    'approval waits',
    'seconds',
    'why not',
  ];
  const rows = results.map((r) => [
    r.case,
    String(r.run),
    r.correct ? 'yes' : 'NO',
    String(r.passes),
    String(r.modelCalls),
    String(r.inputTokens ?? 0),
    String(r.outputTokens ?? 0),
    String(r.approvalRounds ?? 0),
    (r.durationMs / 1000).toFixed(1),
    r.why ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const s = summarize(results);
  return [
    `model: ${model}`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    `${s.correct}/${s.runs} correct (${(s.successRate * 100).toFixed(0)}%), mean model calls per mission ${s.meanModelCalls.toFixed(2)}, mean passes ${s.meanPasses.toFixed(2)}, ${s.inputTokens} input and ${s.outputTokens} output tokens`,
    ...(s.byRun
      ? [
          `model calls per mission by run: ${s.byRun.map((b) => `run ${b.run} ${b.meanModelCalls.toFixed(2)}`).join(', ')}`,
        ]
      : []),
  ].join('\n');
}
