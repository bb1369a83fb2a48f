/**
 * `runSandboxed(source, options)`: the interpreter's `run`, but in a worker thread that
 * the host stops from outside. A program is terminated at its deadline plus a grace
 * period even when a single step runs long, and the thread has a heap cap, so a runaway
 * program can never block the caller's event loop (a Temporal worker keeps heartbeating
 * and running other missions). Tools stay in the host: the thread validates arguments
 * through a synchronous round trip (the zod schemas live here) and calls handlers
 * through messages. Threads are pooled, so a small program costs a round trip, not a
 * thread start. A thread keeps the namespace entries it read for a mission
 * (namespace-cache.ts) and a mission's next program goes back to that thread when it is
 * idle; only entries a program defined or changed travel back, the others stay the
 * values the host sent.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { Namespace, RunOptions, RunResult, ToolCallRecord } from '../lisp/api.ts';
import type { Json } from '../lisp/tools.ts';
import { PtcError, limitExceeded } from '../lisp/errors.ts';
import { DEFAULT_LIMITS, errorText, resultToJson, run, serializeNamespace } from '../lisp/index.ts';
import { keyShapeOf } from '../lisp/json.ts';
import { valueSource } from '../lisp/printer/index.ts';
import { sideEffectOf, type ToolDef } from '../lisp/tools.ts';
import { FnValue, type Value } from '../lisp/values.ts';
import { NamespaceCache, readingContext } from './namespace-cache.ts';
import { readRecord } from './read-record.ts';
import type { FromWorker, RunRequest, ToWorker, Validated, WireError, WireResult } from './wire.ts';

export interface SandboxOptions {
  /** heap of the thread, MB @default 512 */
  maxMemoryMb?: number;
  /** time past the program's own deadline before the thread is terminated @default 1000 */
  graceMs?: number;
  /** terminate the thread after this long whatever the program's limits say @default its deadline + graceMs */
  hardLimitMs?: number;
}

const BOOT = fileURLToPath(new URL('./boot.mjs', import.meta.url));
const ENTRY = fileURLToPath(new URL(`./worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
const POOL_MAX = 4;
/** key of the result value among namespace entries (no def can have this name) */
const VALUE = ' value';

/**
 * A sandbox thread with its channel for synchronous validation, made once with the
 * thread (a channel and its transfer per program cost about 0.1 ms). `tools` are the
 * tools of the program it runs now, whose schemas answer its validations.
 */
interface Thread {
  worker: Worker;
  memoryMb: number;
  rpc: MessagePort;
  flag: Int32Array;
  tools: Map<string, ToolDef>;
  /**
   * Arguments as the program wrote them, by tool and validated arguments: a handler gets
   * them parsed as in-process (parsing the validated output again would apply a schema's
   * transforms twice).
   */
  inputs: Map<string, Json>;
  /** missions whose namespace the thread may still keep (most recent last), to send a mission back to it */
  missions: string[];
  /** the thread has loaded its modules (it says so once) */
  ready: boolean;
}

/** Time a new thread may take to load its modules before its first program's time starts. */
const THREAD_START_MS = 60_000;

/** Missions a thread is remembered for: as many as its namespace cache keeps. */
const AFFINITY = 16;

const idle: Thread[] = [];

/**
 * Threads running programs at once; more wait their turn, so a worker running a hundred
 * passes does not start a hundred threads. NAVIGATOR_SANDBOX_THREADS overrides.
 */
const MAX_BUSY = Math.max(2, Number(process.env.NAVIGATOR_SANDBOX_THREADS) || availableParallelism() * 2);
let busy = 0;
const waiting: Array<() => void> = [];

async function slot(): Promise<() => void> {
  if (busy >= MAX_BUSY) await new Promise<void>((resolve) => waiting.push(resolve));
  busy++;
  return () => {
    busy--;
    waiting.shift()?.();
  };
}

/**
 * An idle thread with this heap: preferably one that ran the mission before (its
 * namespace may still be read there), else the one idle the shortest time.
 */
function acquire(memoryMb: number, mission: string | undefined): Thread {
  let i = mission === undefined ? -1 : lastIndex(idle, (w) => w.memoryMb === memoryMb && w.missions.includes(mission));
  if (i < 0) i = lastIndex(idle, (w) => w.memoryMb === memoryMb);
  if (i >= 0) return served(idle.splice(i, 1)[0]!, mission);
  const worker = new Worker(BOOT, {
    workerData: { entry: ENTRY },
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
  });
  worker.unref();
  const { port1, port2 } = new MessageChannel();
  const flag = new SharedArrayBuffer(4);
  const thread: Thread = {
    worker,
    memoryMb,
    rpc: port1,
    flag: new Int32Array(flag),
    tools: new Map(),
    inputs: new Map(),
    missions: [],
    ready: false,
  };
  port1.on('message', (msg: FromWorker) => {
    if (msg.kind === 'validate')
      answerValidation(port1, thread.flag, thread.tools.get(msg.tool), msg.json, thread.inputs);
  });
  port1.unref();
  worker.once('exit', () => port1.close());
  worker.postMessage({ kind: 'init', port: port2, flag } satisfies ToWorker, [port2]);
  return served(thread, mission);
}

function lastIndex<T>(xs: readonly T[], test: (x: T) => boolean): number {
  for (let i = xs.length - 1; i >= 0; i--) if (test(xs[i]!)) return i;
  return -1;
}

function served(thread: Thread, mission: string | undefined): Thread {
  if (mission === undefined) return thread;
  thread.missions = [...thread.missions.filter((m) => m !== mission), mission].slice(-AFFINITY);
  return thread;
}

function release(thread: Thread): void {
  thread.tools = new Map();
  thread.inputs = new Map();
  if (idle.length >= POOL_MAX) void thread.worker.terminate();
  else idle.push(thread);
}

/**
 * How hosts evaluate programs: in a sandbox thread, so a runaway program cannot block the
 * event loop (a Temporal worker's heartbeats, other missions); NAVIGATOR_SANDBOX=off runs
 * them in-process (debugging).
 */
export function programEvaluator(): (source: string, opts: RunOptions) => Promise<RunResult> {
  return process.env.NAVIGATOR_SANDBOX === 'off' ? run : runSandboxed;
}

/** Programs run in threads, and their namespace entries taken as read before or read anew (tests, bench). */
export interface SandboxStats {
  programs: number;
  /** entries a thread took as it read them for the mission's earlier program */
  entriesReused: number;
  entriesSent: number;
  /** entries of results (and values) the host took as it read them for the mission before */
  resultEntriesReused: number;
}

const stats: SandboxStats = { programs: 0, entriesReused: 0, entriesSent: 0, resultEntriesReused: 0 };

export function sandboxStats(): SandboxStats {
  return { ...stats };
}

/** Stops every pooled thread and forgets what the host read (tests, shutdown). */
export async function closeSandboxes(): Promise<void> {
  resultReads.clear();
  await Promise.all(idle.splice(0).map((t) => t.worker.terminate()));
}

/** Runs a program in a sandbox thread; same contract as `run` in src/lisp. */
export async function runSandboxed(
  source: string,
  opts: RunOptions = {},
  sandbox: SandboxOptions = {},
): Promise<RunResult> {
  const free = await slot();
  try {
    return await runInThread(source, opts, sandbox);
  } finally {
    free();
  }
}

async function runInThread(source: string, opts: RunOptions, sandbox: SandboxOptions): Promise<RunResult> {
  const t0 = performance.now();
  const tools = new Map((opts.tools ?? []).map((t) => [t.name, t]));
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const request = requestOf(source, opts, limits.maxCollectionSize);
  const memoryMb = sandbox.maxMemoryMb ?? 512;
  const thread = acquire(memoryMb, missionOf(request));
  const worker = thread.worker;
  thread.tools = tools;
  const controllers = new Map<number, AbortController>();
  // what survives a thread stopped from outside: the commits it reported, the calls we ran
  const journal = opts.journal ? new Map(opts.journal) : null;
  const calls: ToolCallRecord[] = [];
  const outcome = await new Promise<WireResult | { stopped: PtcError }>((resolve) => {
    const stopAfter = sandbox.hardLimitMs ?? limits.timeoutMs + (sandbox.graceMs ?? 1000);
    const stop = () =>
      resolve({
        stopped: limitExceeded(
          'timeout',
          `program exceeded the ${Math.min(limits.timeoutMs, stopAfter)} ms time limit and was stopped`,
        ),
      });
    // the program's time starts when the thread runs it: a new thread first loads its
    // modules (seconds on a loaded machine), which is bounded apart
    let deadline = thread.ready
      ? setTimeout(stop, stopAfter)
      : setTimeout(
          () =>
            resolve({
              stopped: new PtcError(
                'type_error',
                `the sandbox thread did not start within ${THREAD_START_MS / 1000} s`,
              ),
            }),
          THREAD_START_MS,
        );
    const finish = (v: WireResult | { stopped: PtcError }) => {
      clearTimeout(deadline);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(v);
    };
    const onMessage = (msg: FromWorker) => {
      if (msg.kind === 'ready') {
        thread.ready = true;
        clearTimeout(deadline);
        deadline = setTimeout(stop, stopAfter);
      } else if (msg.kind === 'done') finish(msg.result);
      else if (msg.kind === 'call')
        void callTool(
          worker,
          tools.get(msg.tool),
          msg,
          controllers,
          calls,
          thread.inputs.get(inputKey(msg.tool, msg.args)),
        );
      else if (msg.kind === 'journal') {
        if (msg.value === undefined) journal?.delete(msg.id);
        else journal?.set(msg.id, msg.value);
        opts.onJournal?.({ id: msg.id, ...(msg.value !== undefined ? { value: msg.value } : {}) });
      } else if (msg.kind === 'abort') controllers.get(msg.id)?.abort();
    };
    const onError = (err: Error & { code?: string }) =>
      finish({
        stopped:
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? limitExceeded('memory', `program used more than ${memoryMb} MB of memory and was stopped`)
            : new PtcError('type_error', `the sandbox failed: ${err.message}`),
      });
    const onExit = () => finish({ stopped: new PtcError('type_error', 'the sandbox thread exited') });
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({ kind: 'run', request } satisfies ToWorker);
  });
  if ('stopped' in outcome) {
    void worker.terminate();
    for (const c of controllers.values()) c.abort();
    return stoppedResult(opts, outcome.stopped, performance.now() - t0, journal, calls);
  }
  release(thread);
  stats.programs++;
  stats.entriesReused += outcome.reused;
  stats.entriesSent += Object.keys(request.namespace).length;
  return await resultOf(outcome, opts, limits, request.namespace, missionOf(request));
}

/** The mission a request belongs to, which keys the thread's namespace cache. */
const missionOf = (r: RunRequest): string | undefined => r.effects?.runId ?? r.runId;

function requestOf(source: string, opts: RunOptions, maxItems: number): RunRequest {
  const effects = opts.effects;
  return {
    source,
    context: opts.context ?? {},
    ...(opts.dataNamespaces ? { dataNamespaces: opts.dataNamespaces } : {}),
    journal: opts.journal ? [...opts.journal] : null,
    summaries: [...(opts.summaries ?? new Map())],
    namespace: serializeNamespace(opts.namespace ?? new Map(), { maxItems }),
    history: (opts.history ?? []).map((v) => sourceOf(v, maxItems)),
    limits: opts.limits ?? {},
    ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
    ...(effects
      ? {
          effects: {
            runId: effects.runId,
            results: [...(effects.results ?? new Map())],
            errors: [...(effects.errors ?? new Map())],
            inlineResults: [...(effects.inlineResults ?? new Map())],
          },
        }
      : {}),
    tools: (opts.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      sideEffect: sideEffectOf(t),
      keyShape: t.keyShape !== undefined ? t.keyShape : (keyShapeOf(t.input) ?? null),
      effect: effects ? effects.isEffect(t) : false,
    })),
  };
}

const sourceOf = (v: Value, maxItems: number): string =>
  v instanceof FnValue ? v.toSource() : valueSource(v, { maxItems });

/** The synchronous half of a tool call: validation with the real schema, answered at once. */
function answerValidation(
  port: MessagePort,
  flag: Int32Array,
  tool: ToolDef | undefined,
  json: Json,
  inputs: Map<string, Json>,
): void {
  let reply: Validated;
  if (!tool) reply = { success: false, issues: [{ code: 'custom', path: [], message: 'unknown tool' }] };
  else {
    const parsed = tool.input.safeParse(json);
    reply = parsed.success
      ? { success: true, data: resultToJson(parsed.data) }
      : { success: false, issues: JSON.parse(JSON.stringify(parsed.error.issues)) };
    if (reply.success) inputs.set(inputKey(tool.name, reply.data), json);
  }
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

const inputKey = (tool: string, args: Json): string => `${tool} ${JSON.stringify(args)}`;

/** The asynchronous half: the real handler, with the args as written parsed again (a fresh zod output, as in-process). */
async function callTool(
  worker: Worker,
  tool: ToolDef | undefined,
  msg: Extract<FromWorker, { kind: 'call' }>,
  controllers: Map<number, AbortController>,
  calls: ToolCallRecord[],
  input: Json | undefined,
): Promise<void> {
  const controller = new AbortController();
  controllers.set(msg.id, controller);
  const record: ToolCallRecord = {
    tool: msg.tool,
    args: msg.args,
    taskId: msg.taskId,
    idempotencyKey: msg.idempotencyKey,
    durationMs: 0,
  };
  const started = Date.now();
  calls.push(record);
  let reply: ToWorker;
  try {
    if (!tool) throw new Error(`unknown tool ${msg.tool}`);
    const out = await tool.handler(tool.input.parse(input ?? msg.args), {
      idempotencyKey: msg.idempotencyKey,
      taskId: msg.taskId,
      signal: controller.signal,
    });
    let json: Json;
    try {
      json = resultToJson(out);
    } catch (e) {
      throw new Error(`returned a value that is not JSON (${errorText(e)})`, { cause: e });
    }
    reply = { kind: 'callResult', id: msg.id, ok: json };
    record.result = json;
  } catch (e) {
    reply = { kind: 'callResult', id: msg.id, error: errorText(e) };
    record.error = errorText(e);
  } finally {
    controllers.delete(msg.id);
    record.durationMs = Date.now() - started;
  }
  worker.postMessage(reply);
}

function ptcError(w: WireError): PtcError {
  return new PtcError(w.code, w.message, w.span, w.hint, (w.phase ?? 'eval') as never, w.details as never);
}

/**
 * What the host read of results, per mission (the same rules as a thread's cache): a
 * pass that defines a helper an earlier pass of the mission defined (models repeat
 * them) or a program that returns what an earlier one returned is not read again.
 */
const resultReads = new NamespaceCache();

async function resultOf(
  w: WireResult,
  opts: RunOptions,
  limits: typeof DEFAULT_LIMITS,
  sent: Record<string, string>,
  mission: string | undefined,
): Promise<RunResult> {
  const tools = opts.tools ?? [];
  const { record, known } = resultRecord(w, opts.namespace ?? new Map(), sent);
  // the value may name namespace entries (a def returns its var): read them together
  const all = await readResult(
    w.value === undefined ? record : { ...record, [VALUE]: w.value },
    known,
    tools,
    { ...limits, fuel: Number.MAX_SAFE_INTEGER },
    mission,
  );
  const value = all.get(VALUE) ?? null;
  all.delete(VALUE);
  const namespace: Namespace = all;
  const common = {
    journal: w.journal === null ? null : new Map(w.journal),
    summaries: new Map(w.summaries),
    namespace,
    prints: w.prints,
    toolCalls: w.toolCalls,
    warnings: w.warnings,
    fuelUsed: w.fuelUsed,
    durationMs: w.durationMs,
  };
  switch (w.status) {
    case 'ok':
      return { ...common, status: 'ok', value, returned: w.returned ?? false };
    case 'fail':
      return { ...common, status: 'fail', value };
    case 'suspended':
      return { ...common, status: 'suspended', effects: w.effects ?? [] };
    case 'error':
      return { ...common, status: 'error', error: ptcError(w.error!) };
  }
}

async function readResult(
  rec: Record<string, string>,
  known: Map<string, Value>,
  tools: readonly ToolDef[],
  limits: typeof DEFAULT_LIMITS,
  mission: string | undefined,
): Promise<Namespace> {
  if (mission === undefined) return readRecord(rec, { tools, limits, known });
  const context = readingContext(
    limits,
    tools.map((t) => t.name),
  );
  for (const [name, v] of resultReads.reusable(mission, context, rec)) {
    if (known.has(name)) continue;
    known.set(name, v);
    stats.resultEntriesReused++;
  }
  const all = await readRecord(rec, { tools, limits, known });
  resultReads.keep(mission, context, rec, all);
  return all;
}

/**
 * The namespace after the program as a record to read: the entries it defined or changed
 * as the thread wrote them, the others are the values the host sent (the program left
 * them as they were, so they stay the very values, as with `run` in-process).
 */
function resultRecord(
  w: WireResult,
  given: Namespace,
  sent: Record<string, string>,
): { record: Record<string, string>; known: Map<string, Value> } {
  const record: Record<string, string> = {};
  const known = new Map<string, Value>();
  for (const name of w.names) {
    const changed = w.namespace[name];
    if (changed !== undefined) {
      record[name] = changed;
      continue;
    }
    const v = given.get(name);
    if (v === undefined || sent[name] === undefined)
      throw new Error(`the sandbox thread kept ${name}, which it was not sent`);
    record[name] = sent[name];
    known.set(name, v);
  }
  return { record, known };
}

/** A program stopped from outside: the commits it reported and the tool calls that ran are kept. */
function stoppedResult(
  opts: RunOptions,
  error: PtcError,
  durationMs: number,
  journal: Map<string, Json> | null,
  calls: ToolCallRecord[],
): RunResult {
  return {
    journal,
    summaries: new Map(opts.summaries ?? new Map()),
    namespace: new Map(opts.namespace ?? new Map()),
    prints: [],
    toolCalls: calls,
    warnings: [],
    fuelUsed: 0,
    durationMs,
    status: 'error',
    error,
  };
}
