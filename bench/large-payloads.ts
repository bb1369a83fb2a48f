/**
 * `npm run bench -- large-payloads` (issue 38): a mission of many passes, each reading a
 * 1 MB tool result and writing a 100 KB effect result, with the payload store and
 * without it, on the embedded server and on the real one (`temporal server start-dev`,
 * when built). Reports total history bytes, bytes and time per pass, the store's bytes,
 * and the audit's time and verdict. Every pass reads a different 1 MB (no help from the
 * store's content addressing); the effect's 100 KB result is recorded in history (in the
 * store) in every run, and kept whole in the journal in one of them.
 *
 * BENCH_PAYLOAD_PASSES (default 1000) passes with the store, the journal keeping each
 * effect result's length; BENCH_PAYLOAD_PASSES_KEEP (default 200) with the journal keeping every
 * 100 KB result whole (it then grows 100 KB a pass); BENCH_PAYLOAD_PASSES_INLINE
 * (default 15) without it (each such pass puts over 2 MB into history; the real server
 * ends a run at 50 MB, and at 40 passes the embedded server's process ran out of its 4 GB
 * heap). BENCH_PAYLOAD_SERVERS=embedded|real picks the servers (default both);
 * BENCH_PAYLOAD_REAL=0 skips the real one.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { z } from 'zod';
import { createActivities } from '../src/activities/index.ts';
import type { AgentRegistry, RegisteredAgent } from '../src/activities/agents.ts';
import { resultRecording } from '../src/activities/recording.ts';
import { auditMission } from '../src/audit/mission/audit.ts';
import { createTestEnv } from '../src/devserver/testing.ts';
import { type Agent, defineAgent, defineTool } from '../src/navigator/index.ts';
import { FileStore } from '../src/payloads/file-store.ts';
import { OffloadCodec } from '../src/payloads/offload-codec.ts';
import { silentSpanSinks } from '../src/telemetry/setup.ts';
import { findTemporalCli } from '../src/temporal/cli-server.ts';
import { workflowInterceptorModules, workflowsPath } from '../src/worker/index.ts';
import { repeatingModel } from './agents/mission-agents.ts';
import { drive } from './audit.ts';
import { historySize } from './pass-history.ts';

const PASSES = Number(process.env.BENCH_PAYLOAD_PASSES ?? 1000);
const INLINE_PASSES = Number(process.env.BENCH_PAYLOAD_PASSES_INLINE ?? 15);
/** passes of the run whose journal keeps every effect result whole (it grows 100 KB a pass) */
const KEEP_PASSES = Number(process.env.BENCH_PAYLOAD_PASSES_KEEP ?? 200);
/** the most passes a run is audited for (the audit decodes the whole chain in memory) */
const AUDIT_MAX = Number(process.env.BENCH_PAYLOAD_AUDIT_MAX ?? 200);
const READ_BYTES = 1024 * 1024;
const WRITE_BYTES = 100 * 1024;

let next = 0;
const nextNumber = defineTool({
  name: 'next_number',
  description: 'The next number.',
  input: z.object({}),
  sideEffect: 'local',
  handler: () => ({ n: ++next }),
});
const readPage = defineTool({
  name: 'read_page',
  description: 'Reads page N (1 MB of text).',
  input: z.object({ n: z.number().int() }),
  sideEffect: 'read_only',
  handler: ({ n }) => ({ n, text: `${n}:`.padEnd(READ_BYTES, String.fromCharCode(97 + (n % 26))) }),
});
const writeSummary = defineTool({
  name: 'write_summary',
  description: 'Writes a summary of a page; answers the stored record (100 KB).',
  input: z.object({ n: z.number().int(), length: z.number().int() }),
  sideEffect: 'external',
  handler: ({ n, length }) => ({ n, length, record: `${n}/${length}:`.padEnd(WRITE_BYTES, 'w') }),
});

/** The program; `keep` commits the effect's whole 100 KB result to the journal, else only its length. */
const programOf = (keep: boolean) => `
(let [n (:n (tool/next_number {}))
      go (str "go_" n)
      page (tool/read_page {:n n})]
  (task (str "summary_" n) ${keep ? '(tool/write_summary {:n n :length (count (:text page))})' : '(count (:record (tool/write_summary {:n n :length (count (:text page))})))'})
  (if (>= n data/passes)
    (return {:passes n})
    (task go (return {:status :waiting :decision go}))))`;

const agent = defineAgent({
  name: 'bench-large-payloads',
  prompt: 'Read a page, write its summary, wait for a go; {{passes}} times.',
  input: z.object({ passes: z.number().int().positive() }),
  output: z.object({ passes: z.number() }),
  tools: [nextNumber, readPage, writeSummary],
  limits: { maxTurns: 2 },
});

/** The median of one tenth of `times` (the `k`-th, 0-based). */
function tenth(times: number[], k: number): string {
  const n = Math.max(1, Math.floor(times.length / 10));
  const part = times.slice(k * n, (k + 1) * n).sort((a, b) => a - b);
  return part.length ? part[Math.floor(part.length / 2)]!.toFixed(0) : '-';
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, name));
    if (s.isFile()) total += s.size;
  }
  return total;
}

async function oneRun(server: 'embedded' | 'real', withStore: boolean, passes: number, keep = false): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-payloads-'));
  const offload = withStore ? new OffloadCodec({ store: new FileStore(dir) }) : null;
  const dataConverter: DataConverter = offload ? { payloadCodecs: [offload] } : {};
  const startServer =
    server === 'real'
      ? async () => (await import('../src/temporal/cli-server.ts')).startTemporalDevServer({ port: 0 })
      : undefined;
  const env = await createTestEnv({
    workflowsPath,
    workflowInterceptorModules,
    worker: { sinks: silentSpanSinks },
    startWorker: false,
    dataConverter,
    ...(startServer ? { startServer } : {}),
  });
  const entry: RegisteredAgent = { agent: agent as unknown as Agent, model: repeatingModel(programOf(keep)) };
  const agents: AgentRegistry = new Map([[agent.name, entry]]);
  const worker = await env.createWorker({
    activities: createActivities({
      agents,
      client: env.client,
      heartbeatEveryMs: 500,
      recording: resultRecording(offload),
    }),
  });
  const running = worker.run();
  const label = `${server}, ${withStore ? 'payload store' : 'no store'}, ${passes} passes, ${keep ? 'journal keeps every 100 KB result' : "journal keeps the result's length"}`;
  try {
    next = 0;
    const t0 = performance.now();
    const handle = await env.client.workflow.start('navigatorMission', {
      taskQueue: env.taskQueue,
      workflowId: `bench-payloads-${Date.now()}`,
      args: [{ agent: agent.name, input: { passes } }],
    });
    const times: number[] = [];
    const outcome = await Promise.race([
      drive(handle, passes, times).then(() => handle.result()),
      handle.result(),
    ]).then(
      (r) => `completed ${JSON.stringify(r)}`,
      (err: Error) => `FAILED: ${(err.cause as Error | undefined)?.message ?? err.message}`,
    );
    const runMs = performance.now() - t0;
    // the bytes history holds: each run of the chain as fetched, references not resolved
    const chain = [];
    for (let runId: string | undefined = (await handle.describe()).runId; runId;) {
      const history = await env.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      chain.push(history);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
    const bytes = chain.reduce((n, h) => n + historySize(h.events ?? []), 0);
    const done = next;
    const stored = offload ? folderBytes(dir) : 0;
    const figures = [
      `${label}: ${outcome.slice(0, 160)}`,
      `  history ${(bytes / 1024 / 1024).toFixed(1)} MB in ${chain.length} runs (${(bytes / Math.max(done, 1) / 1024).toFixed(1)} KB per pass), ${(runMs / Math.max(done, 1)).toFixed(0)} ms per pass over ${done} passes (${(runMs / 1000).toFixed(1)} s)`,
      `  time per pass: first ${tenth(times, 0)} ms, last ${tenth(times, 9)} ms (median of the first and the last tenth of the passes)${offload ? `; store ${(stored / 1024 / 1024).toFixed(0)} MB` : ''}`,
    ].join('\n');
    // the audit holds every decoded payload of the chain at once: a 1,000-pass mission reading
    // 1 MB a pass needed over 11 GB (the kernel ended it); BENCH_PAYLOAD_AUDIT_MAX bounds the passes audited
    if (done > AUDIT_MAX)
      return `${figures}\n  audit skipped: ${done} passes, over BENCH_PAYLOAD_AUDIT_MAX=${AUDIT_MAX}`;
    const a0 = performance.now();
    const audit = await auditMission(env.client, handle.workflowId, {
      workflowBundle: env.bundle,
      replayer: env.replayer,
    }).catch((err: Error) => ({ ok: false, problems: [err.message] }));
    const auditMs = performance.now() - a0;
    return `${figures}\n  audit ${(auditMs / 1000).toFixed(1)} s: ${audit.ok ? 'passed' : `FAILED: ${audit.problems.slice(0, 2).join('; ').slice(0, 300)}`}`;
  } finally {
    worker.shutdown();
    await running;
    await env.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchLargePayloads(): Promise<string> {
  const lines: string[] = [
    `each pass reads ${READ_BYTES / 1024} KB (a read inside the pass) and runs an external effect that answers ${WRITE_BYTES / 1024} KB`,
  ];
  const wanted = (process.env.BENCH_PAYLOAD_SERVERS ?? 'embedded,real').split(',');
  const servers: Array<'embedded' | 'real'> = wanted.includes('embedded') ? ['embedded'] : [];
  if (wanted.includes('real') && process.env.BENCH_PAYLOAD_REAL !== '0' && findTemporalCli()) servers.push('real');
  // each run's figures are printed as soon as it ends: a run takes minutes, and a later one may fail
  const say = (text: string) => (console.log(text), lines.push(text));
  console.log(lines[0]);
  for (const server of servers) {
    say(await oneRun(server, true, PASSES));
    if (KEEP_PASSES > 0) say(await oneRun(server, true, KEEP_PASSES, true));
    if (INLINE_PASSES > 0) say(await oneRun(server, false, INLINE_PASSES));
  }
  return lines.join('\n');
}
