/**
 * `auditMission`: cross-checks a mission against Temporal's own history.
 * 1. rebuilds the journal from history events alone (whole continue-as-new chain) and
 *    compares it with the journal the workflow reports;
 * 2. names, for each task id, the event that committed it;
 * 3. checks that no external effect completed twice for one idempotency key;
 * 4. replays every run with the current workflow code (determinism);
 * 5. checks the values history repeats agree (src/audit/mission/values.ts) and runs every
 *    recorded program again on the values of history (src/audit/mission/value-replay.ts).
 */
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { replayHistories } from '../../history/replay-workers.ts';
import { journalQuery } from '../../workflows/mission/messages.ts';
import type { Json } from '../../workflows/mission/contract.ts';
import { EventType, decodeFirst, fetchChain, type RunHistory } from '../../history/fetch.ts';
import { type Provenance, type Reconstruction, type UnavailableResult, reconstruct } from '../../history/rebuild.ts';
import { type ValueLinks, type ValueMismatch, checkValueLinks } from './values.ts';
import { type ValueReplay, replayPasses } from './value-replay.ts';
import { workflowsPath } from '../../workflows/path.ts';
import { silentSpanSinks, workflowInterceptorModules } from '../../telemetry/setup.ts';
import { decodeFailureText, decodePayloads } from '../../codec/history.ts';
import { configuredDataConverter } from '../../codec/load.ts';
import type { HistoryReplayer } from '../../history/replayer.ts';
import { type ReplayedRun, workflowAnswer } from '../workflow-answer.ts';

export interface AuditReport {
  ok: boolean;
  workflowId: string;
  runs: string[];
  journal: {
    matches: boolean;
    fromHistory: Array<[string, Json]>;
    fromWorkflow: Array<[string, Json]>;
    differences: string[];
  };
  provenance: Provenance[];
  duplicateEffects: Array<{ idempotencyKey: string; taskId: string | null; tool: string; completions: number }>;
  replay: { ok: boolean; errors: string[] };
  /** links between values in history: each failed one names the events on both sides */
  values: { checked: number; mismatches: ValueMismatch[]; unrecordedReads: number };
  /** every recorded program run again on the values of history */
  valueReplay: ValueReplay;
  problems: string[];
  /** payloads of history kept in the payload store: each reference resolved and its digest verified */
  storedPayloads: { checked: number; bytes: number };
  /** effects that ran but whose result could not be kept (too large, store down): done, never run again */
  unavailableResults: UnavailableResult[];
  /** for a mission restarted from another's journal: that mission, and whether the seed matches it */
  resumedFrom?: { workflowId: string; runId: string; journalMatches: boolean };
}

export interface AuditOptions {
  /** workflow code to replay against: a path to the workflows module, or a prebuilt bundle */
  workflowsPath?: string;
  workflowBundle?: { code: string };
  /** skip the replay step (e.g. when no workflow code is available) */
  skipReplay?: boolean;
  /** decodes the histories' payloads in the replay @default the process's codec (NAVIGATOR_CODEC), if any */
  dataConverter?: DataConverter;
  /**
   * a replay worker kept between audits (built with the same workflow code and codec). With
   * none of workflowsPath, workflowBundle and replayer, an online audit replays on the
   * process's read replayer (src/history/replay.ts: this package's workflow code), and the
   * latest run of a closed workflow is replayed once, for the journal and for determinism.
   */
  replayer?: HistoryReplayer;
}

/** What an audit of a chain is told besides the options: whether the chain must be closed, a run replayed already. */
export type ChainAuditOptions = AuditOptions & { requireClosed?: boolean; replayed?: ReplayedRun };

export async function auditMission(client: Client, workflowId: string, opts: AuditOptions = {}): Promise<AuditReport> {
  const chain = await fetchChain(client, workflowId);
  // the journal the workflow code holds (a closed run: its history replayed here, which is that run's replay too)
  const { answer, replayed, replayer } = await workflowAnswer<{ entries: Array<[string, Json]> }>(
    client,
    chain,
    journalQuery.name,
    opts,
  );
  const report = await auditChain(chain, answer.entries, {
    dataConverter: client.options.dataConverter,
    ...opts,
    ...(replayer ? { replayer } : {}),
    ...(replayed ? { replayed } : {}),
  });
  return followResumeLink(client, chain, report);
}

/**
 * A mission restarted from another's journal (`navigator resume`): the journal it was
 * seeded with must be the one the old mission's history commits, and no external effect
 * may complete in both for one idempotency key.
 */
async function followResumeLink(client: Client, chain: RunHistory[], report: AuditReport): Promise<AuditReport> {
  const started = chain[0]?.history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = decodeFirst<{
    resumedFrom?: { workflowId: string; runId: string };
    carried?: { journal: Array<[string, Json]> };
  }>(started?.input);
  const from = input?.resumedFrom;
  if (!from) return report;
  const oldChain = await fetchChain(client, from.workflowId, from.runId);
  const old = reconstruct(oldChain);
  const seeded = input?.carried?.journal ?? [];
  const differences = diffJournals(old.journal, seeded);
  const problems = differences.map((d) => `seed from ${from.workflowId}: ${d}`);
  const mine = reconstruct(chain).effects;
  for (const [key, effect] of old.effects) {
    const again = mine.get(key);
    if (effect.completions.length && again?.completions.length)
      problems.push(
        `external effect ${effect.tool} (key ${key.slice(0, 12)}…) completed in ${from.workflowId} and again after the resume`,
      );
  }
  return {
    ...report,
    ok: report.ok && problems.length === 0,
    problems: [...report.problems, ...problems],
    resumedFrom: { ...from, journalMatches: differences.length === 0 },
  };
}

/**
 * The audit of a chain of histories (online: fetched, with the journal the workflow
 * reports; offline: read from files, `fromWorkflow` null). A history that cannot be read
 * (cut short, payloads that do not decode) is a problem in the report, never a crash.
 */
export async function auditChain(
  chain: RunHistory[],
  fromWorkflow: Array<[string, Json]> | null,
  opts: ChainAuditOptions = {},
): Promise<AuditReport> {
  const workflowId = chain[0]?.workflowId ?? '';
  const problems: string[] = [];
  // encrypted or stored payloads (a history read from a file) are decoded with the codecs given or configured
  const codecs = (opts.dataConverter ?? (await configuredDataConverter()))?.payloadCodecs ?? [];
  const storedPayloads = { checked: 0, bytes: 0 };
  for (const run of chain) {
    const here = await decodePayloads(run.history, codecs);
    for (const report of [run.decoded, here]) {
      if (!report) continue;
      storedPayloads.checked += report.stored;
      storedPayloads.bytes += report.storedBytes;
      problems.push(...report.failures.map((f) => `run ${run.runId}: ${decodeFailureText(f)}`));
    }
  }
  let links: ValueLinks;
  try {
    links = checkValueLinks(chain);
  } catch (err) {
    problems.push(`the history could not be read: ${(err as Error).message}`);
    const rebuilt: Reconstruction = { journal: [], provenance: new Map(), effects: new Map(), problems: [] };
    links = {
      rebuilt,
      checked: 0,
      mismatches: [],
      commitMismatches: new Map(),
      passes: [],
      effects: new Map(),
      unrecordedReads: 0,
    };
  }
  const rebuilt = links.rebuilt;
  // the replay and the value checks (programs run again on sandbox threads) go side by side
  const replaying = opts.skipReplay
    ? Promise.resolve({ ok: true, errors: [] })
    : replayChain(chain, opts).catch((err: Error) => ({ ok: false, errors: [err.message] }));
  const { values, valueReplay } = await valueChecks(links);
  if (opts.requireClosed) problems.push(...openRuns(chain));
  problems.push(...unknownEvents(chain));
  const differences = fromWorkflow ? diffJournals(rebuilt.journal, fromWorkflow) : [];
  const duplicateEffects = [...rebuilt.effects.values()]
    .filter((e) => e.completions.length > 1)
    .map((e) => ({
      idempotencyKey: e.idempotencyKey,
      taskId: e.taskId,
      tool: e.tool,
      completions: e.completions.length,
    }));
  const replay = await replaying;
  const provenance = rebuilt.journal.map(
    ([key]) => rebuilt.provenance.get(key) ?? { key, runId: '', eventId: 0, source: 'unknown' },
  );
  problems.push(
    ...rebuilt.problems,
    ...provenance.filter((p) => p.source === 'unknown').map((p) => `no event committed ${p.key}`),
  );
  for (const d of duplicateEffects)
    problems.push(
      `external effect ${d.tool}${d.taskId ? ` (task ${d.taskId})` : ''} completed ${d.completions} times for one idempotency key`,
    );
  return {
    ok:
      differences.length === 0 &&
      duplicateEffects.length === 0 &&
      replay.ok &&
      problems.length === 0 &&
      values.mismatches.length === 0 &&
      valueReplay.ok,
    workflowId,
    runs: chain.map((r) => r.runId),
    journal: {
      matches: differences.length === 0,
      fromHistory: rebuilt.journal,
      fromWorkflow: fromWorkflow ?? [],
      differences,
    },
    provenance,
    duplicateEffects,
    replay,
    values,
    valueReplay,
    problems,
    storedPayloads,
    unavailableResults: [...rebuilt.effects.values()].flatMap((e) =>
      e.unavailable ? [{ idempotencyKey: e.idempotencyKey, taskId: e.taskId, tool: e.tool, ...e.unavailable }] : [],
    ),
  };
}

/**
 * Value replay, then the links: an effect result that differs from its task's commit is
 * a failure for a pass whose programs cannot be run again (not recorded, or cut); a
 * replayed pass re-derives its commits from the effects' results itself.
 */
async function valueChecks(links: ValueLinks): Promise<Pick<AuditReport, 'values' | 'valueReplay'>> {
  const valueReplay = await replayPasses(links.passes, links.effects).catch((err: Error): ValueReplay => ({
    ok: false,
    passes: [],
    mismatches: [{ check: 'replay', message: `value replay could not run: ${err.message}`, sides: [noSide, noSide] }],
  }));
  const verified = new Set(
    valueReplay.passes.filter((p) => p.status === 'ok' || p.status === 'failed').map((p) => p.pass),
  );
  const unverified = [...links.commitMismatches].filter(([pass]) => !verified.has(pass)).flatMap(([, m]) => m);
  const rederived = new Set(valueReplay.passes.filter((p) => p.status === 'ok').map((p) => p.pass));
  return {
    values: {
      checked: links.checked,
      mismatches: [...suspects(links.mismatches, rederived), ...unverified],
      unrecordedReads: links.unrecordedReads,
    },
    valueReplay,
  };
}

/**
 * A journal a pass read that differs from the rebuilt one names every entry changed since
 * the last matching read; an entry committed by a pass that value replay re-derived is
 * borne out by that pass's program and tool results, so it is left out (unless all are).
 */
function suspects(mismatches: ValueMismatch[], rederived: Set<number>): ValueMismatch[] {
  const groups = new Map<string, ValueMismatch[]>();
  for (const m of mismatches) {
    if (m.check !== 'journal-read') continue;
    const key = `${m.sides[0].runId}:${m.sides[0].eventId}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const dropped = new Set<ValueMismatch>();
  for (const group of groups.values()) {
    const borne = group.filter((m) => m.committedBy !== undefined && rederived.has(m.committedBy));
    if (borne.length < group.length) for (const m of borne) dropped.add(m);
  }
  return mismatches.filter((m) => !dropped.has(m));
}

const noSide = { runId: '', eventId: 0, what: '', value: null };

/** The value checks of a report as text lines (the CLI prints them). */
export function formatValueChecks(report: Pick<AuditReport, 'values' | 'valueReplay'>): string[] {
  const lines: string[] = [];
  const { values, valueReplay } = report;
  const reads = values.unrecordedReads
    ? ` (${values.unrecordedReads} pass step(s) recorded no journal read: written before it)`
    : '';
  lines.push(
    `  value links: ${values.checked} checked, ${values.mismatches.length === 0 ? 'all agree' : `${values.mismatches.length} DIFFER`}${reads}`,
  );
  for (const m of values.mismatches) lines.push(`    ${m.message}`);
  const count = (status: string) => valueReplay.passes.filter((p) => p.status === status).length;
  const parts = [
    `${count('ok')} re-derived`,
    count('failed') && `${count('failed')} FAILED`,
    count('not recorded') && `${count('not recorded')} not recorded`,
    count('cut') && `${count('cut')} cut (programs too large to record)`,
    count('limit') && `${count('limit')} stopped at a limit of the agent's (not replayed)`,
  ].filter(Boolean);
  lines.push(`  value replay: ${valueReplay.passes.length} pass(es): ${parts.join(', ')}`);
  for (const m of valueReplay.mismatches) lines.push(`    ${m.message}`);
  return lines;
}

const CLOSING = new Set<number | null | undefined>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/** Events this audit does not know: a history from a newer server, or a damaged one. */
function unknownEvents(chain: RunHistory[]): string[] {
  const out: string[] = [];
  for (const r of chain) {
    for (const e of r.history.events ?? []) {
      const type = e.eventType;
      if (typeof type !== 'number' || !EventType[type] || type === EventType.EVENT_TYPE_UNSPECIFIED) {
        out.push(`run ${r.runId}: event ${Number(e.eventId)} has an unknown type (${String(type)})`);
      }
    }
  }
  return out;
}

/** Runs whose history does not end with the workflow closing (cut short, or exported while running). */
function openRuns(chain: RunHistory[]): string[] {
  return chain
    .filter((r) => !CLOSING.has(r.history.events?.at(-1)?.eventType))
    .map(
      (r) =>
        `run ${r.runId}: the history ends at event ${r.history.events?.length ?? 0} without the workflow closing (cut short, or exported while it ran)`,
    );
}

export function diffJournals(a: Array<[string, Json]>, b: Array<[string, Json]>): string[] {
  const out: string[] = [];
  const ma = new Map(a);
  const mb = new Map(b);
  for (const [k, v] of ma) {
    if (!mb.has(k)) out.push(`${k}: in history, missing from the workflow`);
    else if (JSON.stringify(v) !== JSON.stringify(mb.get(k)))
      out.push(`${k}: history has ${JSON.stringify(v)}, workflow has ${JSON.stringify(mb.get(k))}`);
  }
  for (const k of mb.keys()) if (!ma.has(k)) out.push(`${k}: in the workflow, missing from history`);
  if (out.length === 0 && JSON.stringify([...ma.keys()]) !== JSON.stringify([...mb.keys()])) {
    out.push(`same entries, different commit order`);
  }
  return out;
}

/** Replays every run of a chain with the current workflow code. */
export async function replayChain(
  chain: RunHistory[],
  opts: ChainAuditOptions,
  replayName = 'navigator-audit',
): Promise<{ ok: boolean; errors: string[] }> {
  const { replayed } = opts;
  const errors: string[] = replayed?.error ? [`run ${replayed.runId}: ${replayed.error}`] : [];
  const histories = chain
    .filter((r) => r.runId !== replayed?.runId)
    .map((r) => ({ workflowId: r.workflowId, history: r.history }));
  if (histories.length === 0) return { ok: errors.length === 0, errors };
  if (opts.replayer) {
    for (const outcome of await opts.replayer.replay(histories))
      if (outcome.error) errors.push(`run ${outcome.runId}: ${outcome.error.message}`);
    return { ok: errors.length === 0, errors };
  }
  // the tracing interceptors are part of the workflow code (src/telemetry/setup.ts); their spans go nowhere here
  const source = opts.workflowBundle
    ? { workflowBundle: opts.workflowBundle }
    : {
        workflowsPath: opts.workflowsPath ?? defaultWorkflowsPath(),
        interceptors: { workflowModules: [...workflowInterceptorModules] },
      };
  const dataConverter = opts.dataConverter ?? (await configuredDataConverter());
  for await (const result of replayHistories(
    { ...source, sinks: silentSpanSinks, replayName, ...(dataConverter ? { dataConverter } : {}) },
    histories,
  )) {
    if (result.error) errors.push(`run ${result.runId}: ${result.error.message}`);
  }
  return { ok: errors.length === 0, errors };
}

export function defaultWorkflowsPath(): string {
  return workflowsPath;
}
