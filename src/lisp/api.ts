/**
 * Types of the interpreter's public entry point, `run(source, options)` in `index.ts`.
 */
import type { PtcError } from './errors.ts';
import type { Json, ToolDef } from './tools.ts';
import type { Value } from './values.ts';

/** Journal: task id → committed JSON value, in commit order. */
export type Journal = Map<string, Json>;

/** The user namespace: `def`/`defn`/`defonce` bindings. */
export type Namespace = Map<string, Value>;

export interface Limits {
  /** evaluation steps @default 1_000_000 */
  fuel: number;
  /** wall clock per program, async tools included @default 5000 */
  timeoutMs: number;
  /** nested function calls @default 512 */
  maxDepth: number;
  /** items in one collection built by the program @default 1_000_000 */
  maxCollectionSize: number;
  /** characters of println output in total @default 65_536 */
  maxOutputChars: number;
  /** tool calls per program @default Infinity */
  maxToolCalls: number;
  /** characters of a regex pattern @default 1000 */
  maxRegexLength: number;
}

export interface EffectOptions {
  /** Run id mixed into every idempotency key. */
  runId: string;
  /** Tools for which this returns true do not run inline: evaluation suspends. */
  isEffect: (tool: ToolDef) => boolean;
  /** Results of effects already run elsewhere, by effect id (= idempotency key). */
  results?: Map<string, Json>;
  /** Effects that ran elsewhere and failed, by effect id: the call raises a `tool_error`. */
  errors?: Map<string, string>;
  /**
   * Results of inline (non-effect) tool calls made by an earlier evaluation of the same
   * program, by idempotency key: a pass resumed after its effects re-evaluates its program,
   * and a read must neither run again nor answer differently and change the branch taken.
   */
  inlineResults?: Map<string, Json>;
}

export interface RunOptions {
  /** `data/` context */
  context?: Record<string, unknown>;
  /** namespaces read from the context like `data/`: `ns/name` is the key `"ns/name"` */
  dataNamespaces?: string[];
  tools?: ToolDef[];
  /** `null`/absent: tasks run uncached and a `journal_inactive` warning is returned */
  journal?: Journal | null;
  /** step-done summaries so far */
  summaries?: Map<string, string>;
  /** `def`s from earlier programs */
  namespace?: Namespace;
  /** values of `*1 *2 *3` */
  history?: Value[];
  limits?: Partial<Limits>;
  /** Effect suspension (Temporal). Without it every tool runs inline. */
  effects?: EffectOptions;
  /** Run id for idempotency keys when no `effects` option is given @default "local" */
  runId?: string;
  /**
   * Told of every journal change as it happens: a commit (`value` set) or a task-reset
   * (no `value`). For hosts that may lose the run before it returns (the sandbox thread
   * terminated at its deadline keeps the commits made so far).
   */
  onJournal?: (change: { id: string; value?: Json }) => void;
}

export interface EffectRequest {
  /** = idempotencyKey; the key under which the host passes the result back */
  id: string;
  taskId: string | null;
  tool: string;
  /** validated arguments (zod output), as JSON */
  args: Json;
  idempotencyKey: string;
  /** where the program asked for it: the line (1-based) and that line's text, for the person who approves it */
  call?: CallSite;
}

export interface CallSite {
  line: number;
  text: string;
}

export interface ToolCallRecord {
  tool: string;
  args: Json;
  taskId: string | null;
  idempotencyKey: string;
  result?: Json;
  error?: string;
  durationMs: number;
}

export interface Warning {
  code: 'journal_inactive' | string;
  message: string;
}

interface Common {
  /** The journal after the program: every commit made before the end stays. */
  journal: Journal | null;
  summaries: Map<string, string>;
  namespace: Namespace;
  prints: string[];
  toolCalls: ToolCallRecord[];
  warnings: Warning[];
  fuelUsed: number;
  durationMs: number;
}

export type RunResult =
  | (Common & { status: 'ok'; value: Value; /** true when ended by `(return v)` */ returned: boolean })
  | (Common & { status: 'fail'; value: Value })
  | (Common & { status: 'error'; error: PtcError })
  | (Common & { status: 'suspended'; effects: EffectRequest[] });
