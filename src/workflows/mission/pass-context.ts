/**
 * A pass step's context without a query (issue 30). The `runPass` activity works on its
 * mission's journal, summaries, suspended state and effect results, which live in the
 * workflow; asked for by query, each step costs a query task on the workflow's worker
 * (~12 ms on the embedded server; a replay when the run is not cached). History stays
 * small all the same: the workflow gives the context in the step's input only
 *
 * - whole, when it is small (a run's first pass), or
 * - as what changed since the context the step answered before it read, named by that
 *   step's `ref`: journal changes in commit order (a commit of that step by key only, its
 *   value being in that step's result), the last error, changed result shapes, the results
 *   of the effects run since. The worker that ran that step kept its context and answer
 *   (src/activities/pass-contexts.ts) and rebuilds exactly what a query would have
 *   answered when the step was scheduled; any other worker asks by query, as before.
 *
 * The workflow's commands never depend on any of this: only the activity input does.
 * Pure and import-free (types only): the workflow bundle and the worker both use it.
 */
import type {
  EffectResult,
  Json,
  JournalEntries,
  JournalOp,
  PassContext,
  PassContextInput,
  PassResponse,
} from './contract.ts';

/** Most characters of context one step's input carries; a bigger one is read by query. */
export const MAX_CONTEXT_INPUT_CHARS = 8 * 1024;

/** Most journal changes kept for the next step; past it the next step reads by query. */
const MAX_LOGGED_CHANGES = 256;

/** What the workflow knows of the step answered last, whose worker may still hold its context. */
interface Base {
  ref: string;
  kind: PassResponse['kind'];
  /** the journal version that step read */
  readVersion: number;
}

/** What a step's context is made of, as the workflow has it when it schedules the step. */
export interface StepParts {
  resume: boolean;
  workflowId: string;
  /** the whole context, as the query would answer it now */
  full: () => PassContext;
  lastError: string | null;
  /** a new pass: the result shapes it is shown */
  toolShapes: () => Record<string, string>;
  /** a resumed step: the pass's effect results so far, and the ids of the effects the last step asked for */
  effectResults: Record<string, EffectResult>;
  settled: readonly string[];
}

/**
 * The workflow's side: the journal changes since the step answered last read, and what
 * that step was. Deterministic (history alone decides it), kept by MissionState.
 */
export class ContextFeed {
  private base: Base | null = null;
  private log: Array<{ version: number; op: JournalOp }> = [];
  /** changes up to this version were dropped from the log (too many): a step that read an older journal cannot be a base */
  private droppedThrough = 0;
  /** the result shapes of the current pass, as JSON */
  private shapes: string | null = null;

  /** A journal change, made at `version`. */
  changed(version: number, op: JournalOp): void {
    if (this.log.length >= MAX_LOGGED_CHANGES) {
      this.droppedThrough = version;
      this.log = [];
      this.base = null;
      return;
    }
    this.log.push({ version, op });
  }

  /** A step answered: the next step's context is what changed since it. */
  answered(res: PassResponse): void {
    const read = res.journalRead?.version;
    const usable = res.ref !== undefined && read !== undefined && read >= this.droppedThrough;
    this.base = usable ? { ref: res.ref!, kind: res.kind, readVersion: read } : null;
    // steps run one at a time: no later step reads a journal older than this one did
    this.log = read === undefined ? [] : this.log.filter((e) => e.version > read);
  }

  /** A step failed for good: its worker's context is no base. */
  lost(): void {
    this.base = null;
  }

  /** The context input of the next step, or undefined when the activity must ask by query. */
  next(step: StepParts): PassContextInput | undefined {
    let shapes: Record<string, string> | undefined;
    if (!step.resume) {
      // a pass's shapes stay what they were when it started: compare with the last pass's
      const now = step.toolShapes();
      const json = JSON.stringify(now);
      if (json !== this.shapes) shapes = now;
      this.shapes = json;
    }
    const input = this.base
      ? this.delta(this.base, step, shapes)
      : { full: compactContext(step.full(), step.workflowId) };
    return input && fits(input) ? input : undefined;
  }

  private delta(base: Base, step: StepParts, shapes: Record<string, string> | undefined): PassContextInput | undefined {
    // a resumed step follows the step that stopped at effects; a new pass, one that was done
    if ((base.kind === 'effects') !== step.resume) return undefined;
    const changes = this.log.length ? { journal: this.log.map((e) => e.op) } : {};
    if (step.resume) {
      // by index in the base step's effects (its worker knows their ids), in the order the workflow recorded them
      const index = new Map(step.settled.map((id, i) => [id, i]));
      const settled: Array<[number, EffectResult]> = [];
      for (const [id, r] of Object.entries(step.effectResults)) if (index.has(id)) settled.push([index.get(id)!, r]);
      return { base: base.ref, ...changes, settled };
    }
    return { base: base.ref, ...changes, lastError: step.lastError, ...(shapes ? { toolShapes: shapes } : {}) };
  }
}

const fits = (input: PassContextInput): boolean => JSON.stringify(input).length <= MAX_CONTEXT_INPUT_CHARS;

/** A context's keys at these values are left out of a whole context in an input (and `runId` when it is the workflow id). */
const DEFAULTS = {
  journalVersion: 0,
  journal: [],
  summaries: {},
  input: {},
  lastError: null,
  passState: null,
  passStep: 0,
  effectResults: {},
  toolShapes: {},
} as const;

const isDefault = (key: string, value: unknown): boolean => {
  const d = (DEFAULTS as Record<string, unknown>)[key];
  if (d === null || typeof d !== 'object') return value === d;
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray(value) === Array.isArray(d) &&
    Object.keys(value).length === 0
  );
};

/** The context without the keys at their defaults: a first step's is mostly its input. */
export function compactContext(context: PassContext, workflowId: string): Partial<PassContext> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined || isDefault(key, value) || (key === 'runId' && value === workflowId)) continue;
    out[key] = value;
  }
  return out as Partial<PassContext>;
}

/** The context a compact one stands for. */
export function wholeContext(compact: Partial<PassContext>, workflowId: string): PassContext {
  return {
    ...DEFAULTS,
    journal: [],
    summaries: {},
    input: {},
    effectResults: {},
    toolShapes: {},
    runId: workflowId,
    ...compact,
  };
}

/** Summaries after a pass: its own over the earlier ones (the workflow's applyPass and the worker's cache). */
export const withSummaries = (
  before: Record<string, string>,
  pass: Record<string, string>,
): Record<string, string> => ({ ...before, ...pass });

/**
 * The journal after `ops`, applied to the journal a step read; `commits` are that step's
 * own (what `c` refers to). A key is re-inserted when written, as the workflow does, so
 * the order is the workflow's too. Null when an op names a commit the step did not make.
 */
export function applyJournalOps(
  read: JournalEntries,
  commits: JournalEntries,
  ops: readonly JournalOp[],
): JournalEntries | null {
  const journal = new Map(read);
  const committed = new Map(commits);
  for (const op of ops) {
    const key = op[1];
    journal.delete(key);
    if (op[0] === 'd') continue;
    if (op[0] === 's') {
      journal.set(key, op[2]);
      continue;
    }
    if (!committed.has(key)) return null;
    journal.set(key, committed.get(key) as Json);
  }
  return [...journal.entries()];
}
