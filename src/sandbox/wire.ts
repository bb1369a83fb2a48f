/**
 * What crosses the thread boundary of the sandbox: a program run request, the messages
 * of tool validation and tool calls, and the result. Values travel as re-readable source
 * (`serializeNamespace` / `valueSource`), everything else as JSON-like data that the
 * structured clone keeps.
 */
import type { MessagePort } from 'node:worker_threads';
import type { EffectRequest, Limits, ToolCallRecord, Warning } from '../lisp/api.ts';
import type { Json } from '../lisp/tools.ts';
import type { ErrorCode } from '../lisp/errors.ts';
import type { Span } from '../lisp/form.ts';
import type { KeyShape } from '../lisp/json.ts';
import type { SideEffectClass } from '../lisp/tools.ts';

export interface ToolWire {
  name: string;
  description: string;
  sideEffect: SideEffectClass;
  keyShape: KeyShape | null;
  /** suspends evaluation (runs elsewhere) instead of running inline */
  effect: boolean;
}

export interface RunRequest {
  source: string;
  context: Record<string, unknown>;
  dataNamespaces?: string[];
  journal: Array<[string, Json]> | null;
  summaries: Array<[string, string]>;
  /** name → source */
  namespace: Record<string, string>;
  /** `*1 *2 *3` as source */
  history: string[];
  limits: Partial<Limits>;
  runId?: string;
  effects?: {
    runId: string;
    results: Array<[string, Json]>;
    errors: Array<[string, string]>;
    inlineResults: Array<[string, Json]>;
  };
  tools: ToolWire[];
}

export interface WireError {
  code: ErrorCode;
  message: string;
  span?: Span;
  hint?: string;
  phase?: string;
  details?: Record<string, unknown>;
}

export interface WireResult {
  status: 'ok' | 'fail' | 'error' | 'suspended';
  /** source of the value (ok, fail) */
  value?: string;
  returned?: boolean;
  journal: Array<[string, Json]> | null;
  summaries: Array<[string, string]>;
  /** every name of the namespace after the program, in order */
  names: string[];
  /** source of the entries the program defined or changed; the others are the request's */
  namespace: Record<string, string>;
  prints: string[];
  toolCalls: ToolCallRecord[];
  warnings: Warning[];
  fuelUsed: number;
  durationMs: number;
  error?: WireError;
  effects?: EffectRequest[];
  /** namespace entries the thread took as it read them for the mission's earlier program */
  reused: number;
}

/** Thread → host. `validate` is answered synchronously on the request's port. */
export type FromWorker =
  | { kind: 'validate'; tool: string; json: Json }
  | { kind: 'call'; id: number; tool: string; args: Json; idempotencyKey: string; taskId: string | null }
  | { kind: 'abort'; id: number }
  /** a journal change as it happens (kept if the thread is stopped before it answers) */
  | { kind: 'journal'; id: string; value?: Json }
  | { kind: 'done'; result: WireResult }
  /** once, when the thread has loaded its modules: its first program's time starts */
  | { kind: 'ready' };

export type Validated = { success: true; data: Json } | { success: false; issues: unknown[] };

/** Host → thread. */
export type ToWorker =
  /** once per thread: the channel and flag of synchronous validation, kept for every program */
  | { kind: 'init'; port: MessagePort; flag: SharedArrayBuffer }
  | { kind: 'run'; request: RunRequest }
  | { kind: 'callResult'; id: number; ok?: Json; error?: string };
