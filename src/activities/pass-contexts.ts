/**
 * The worker's side of src/workflows/mission/pass-context.ts: per mission run, what the step this
 * worker ran last read and answered, so the next step's context can be rebuilt from the
 * changes its input carries instead of asked for by query. Bounded (missions and
 * characters, least recently used first out); a miss only costs the query.
 */
import { randomBytes } from 'node:crypto';
import type {
  EffectResult,
  JournalEntries,
  PassContext,
  PassContextInput,
  PassRequest,
  PassResponse,
} from '../workflows/mission/contract.ts';
import { applyPatch } from '../kernel/json-patch.ts';
import { applyJournalOps, wholeContext, withSummaries } from '../workflows/mission/pass-context.ts';

/** What the next step of a mission starts from, on the worker that ran the step before it. */
export interface StepBase {
  /** the next step resumes the pass (this one stopped at effects) or starts a new one */
  next: 'resume' | 'pass';
  /** the context the next step reads before the workflow's changes: this step's, with its answer applied */
  context: PassContext;
  /** what this step committed (a done pass), which the workflow's `c` changes refer to */
  commits: JournalEntries;
  /** the ids of the effects this step asked for (as the workflow knows them), which `settled` refers to by index */
  effects: string[];
}

/** The base a step leaves: its context with its own answer applied as the workflow applies it. */
export function stepBase(read: PassContext, res: PassResponse): StepBase {
  if (res.kind === 'effects') {
    const passState = (res.state ?? applyPatch(read.passState, res.patch ?? null)) as PassContext['passState'];
    return {
      next: 'resume',
      context: { ...read, passState },
      commits: [],
      effects: res.effects.map((e) => e.id ?? e.idempotencyKey),
    };
  }
  const context = {
    ...read,
    summaries: withSummaries(read.summaries, res.summaries),
    passState: null,
    passStep: 0,
    effectResults: {},
  };
  return { next: 'pass', context, commits: res.journalDelta, effects: [] };
}

/**
 * The context `req` describes on top of `base`: what a query would have answered when the
 * workflow scheduled it. Null when the changes do not fit the base (ask by query).
 */
export function contextFrom(
  base: StepBase,
  req: PassRequest,
  input: Extract<PassContextInput, { base: string }>,
): PassContext | null {
  if (req.resume !== (base.next === 'resume')) return null;
  const journal = applyJournalOps(base.context.journal, base.commits, input.journal ?? []);
  if (!journal) return null;
  const context = { ...base.context, journalVersion: req.journalVersion, journal };
  if (req.resume) {
    const effectResults =
      req.step === undefined ? null : withSettled(context.effectResults, base.effects, input.settled);
    return effectResults && { ...context, passStep: req.step!, effectResults };
  }
  if (input.lastError === undefined) return null;
  return { ...context, lastError: input.lastError, ...(input.toolShapes ? { toolShapes: input.toolShapes } : {}) };
}

/** The pass's effect results with the base step's settled ones added, as the workflow adds them; null if one is not its. */
function withSettled(
  before: PassContext['effectResults'],
  ids: readonly string[],
  settled: Array<[number, EffectResult]> | undefined,
): PassContext['effectResults'] | null {
  if (!settled) return null;
  const out = { ...before };
  for (const [i, result] of settled) {
    const id = ids[i];
    if (id === undefined) return null;
    out[id] = result;
  }
  return out;
}

export interface PassContextsOptions {
  /** most mission runs kept @default 1000 */
  maxMissions?: number;
  /**
   * most characters kept (JSON), over all missions @default 32 Mi, or NAVIGATOR_PASS_CONTEXT_CHARS.
   * A mission whose context (mostly its journal) is larger than this is given its whole
   * context by query on every pass, which the payload store then keeps once a pass: raise it
   * for missions that keep tens of MB in their journal.
   */
  maxChars?: number;
}

/** How a worker's pass steps got their context. */
export interface PassContextCounts {
  /** whole in the input */
  given: number;
  /** rebuilt from this worker's base and the input's changes */
  rebuilt: number;
  /** to be asked for by query (no context in the input, or no matching base here) */
  missed: number;
}

/** The bases of the missions this worker ran a step of last, by workflow id and run id. */
export class PassContexts {
  private readonly bases = new Map<string, { ref: string; json: string }>();
  private chars = 0;
  private readonly maxMissions: number;
  private readonly maxChars: number;
  readonly counts: PassContextCounts = { given: 0, rebuilt: 0, missed: 0 };

  constructor(opts: PassContextsOptions = {}) {
    this.maxMissions = opts.maxMissions ?? 1000;
    this.maxChars = opts.maxChars ?? charsFromEnv();
  }

  get size(): number {
    return this.bases.size;
  }

  /** The context `req` carries or describes, or null: ask the workflow by query. */
  contextOf(workflowId: string, runId: string, req: PassRequest): PassContext | null {
    const input = req.context;
    if (input && 'full' in input) {
      this.counts.given++;
      return wholeContext(input.full, workflowId);
    }
    const key = keyOf(workflowId, runId);
    const kept = input ? this.bases.get(key) : undefined;
    // a fresh copy each time (parsed): the pass may change what it is given
    const context =
      kept && input && kept.ref === input.base ? contextFrom(JSON.parse(kept.json) as StepBase, req, input) : null;
    if (!context) {
      this.counts.missed++;
      return null;
    }
    this.counts.rebuilt++;
    return context;
  }

  /** Keeps the base the step that read `read` and answered `res` leaves; returns the ref naming it. */
  remember(workflowId: string, runId: string, read: PassContext, res: PassResponse): string {
    const ref = randomBytes(6).toString('base64url');
    const key = keyOf(workflowId, runId);
    this.drop(key);
    // as JSON: what crossed to the workflow and back is what a query would give, and it is not shared
    const json = JSON.stringify(stepBase(read, res));
    if (json.length > this.maxChars) return ref;
    this.bases.set(key, { ref, json });
    this.chars += json.length;
    for (const [oldest] of this.bases) {
      if (this.bases.size <= this.maxMissions && this.chars <= this.maxChars) break;
      this.drop(oldest);
    }
    return ref;
  }

  /** Forgets every mission (a restarted worker has nothing kept either). */
  clear(): void {
    this.bases.clear();
    this.chars = 0;
  }

  private drop(key: string): void {
    const kept = this.bases.get(key);
    if (!kept) return;
    this.bases.delete(key);
    this.chars -= kept.json.length;
  }
}

const keyOf = (workflowId: string, runId: string) => `${runId}/${workflowId}`;

function charsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.NAVIGATOR_PASS_CONTEXT_CHARS ?? 32 * 1024 * 1024);
  return Number.isInteger(n) && n > 0 ? n : 32 * 1024 * 1024;
}
