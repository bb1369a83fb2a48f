/**
 * The sandbox thread: runs one PTC-Lisp program at a time with the ordinary interpreter.
 * Tools are proxies: argument validation is a synchronous round trip to the host (the
 * zod schemas live there), tool calls an asynchronous one. The host may terminate this
 * thread at any moment (deadline, memory); nothing here needs to clean up.
 */
import { type MessagePort, parentPort, receiveMessageOnPort } from 'node:worker_threads';
import type { RunOptions, RunResult } from '../lisp/api.ts';
import type { Json } from '../lisp/tools.ts';
import { PtcError } from '../lisp/errors.ts';
import { run, serializeNamespace } from '../lisp/index.ts';
import { valueSource } from '../lisp/printer/index.ts';
import type { ToolDef } from '../lisp/tools.ts';
import { FnValue, type Value } from '../lisp/values.ts';
import { NamespaceCache, readingContext } from './namespace-cache.ts';
import { readRecord } from './read-record.ts';
import type { FromWorker, RunRequest, ToWorker, Validated, WireResult } from './wire.ts';

const port = parentPort!;
let nextCall = 1;
const calls = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void }>();

/** The validation channel, sent once when the thread starts (`init`). */
let rpc: { port: MessagePort; flag: Int32Array } | undefined;

/** Namespaces this thread read, per mission, for the mission's next program. */
const namespaces = new NamespaceCache();

port.on('message', (msg: ToWorker) => {
  if (msg.kind === 'callResult') return settleCall(msg);
  if (msg.kind === 'init') {
    rpc = { port: msg.port, flag: new Int32Array(msg.flag) };
    return;
  }
  void execute(msg.request, rpc!.port, rpc!.flag).then((result) => post({ kind: 'done', result }));
});

function post(msg: FromWorker): void {
  port.postMessage(msg);
}

function settleCall(msg: Extract<ToWorker, { kind: 'callResult' }>): void {
  const call = calls.get(msg.id);
  if (!call) return;
  calls.delete(msg.id);
  if (msg.error !== undefined) call.reject(new Error(msg.error));
  else call.resolve(msg.ok ?? null);
}

/** Asks the host to validate args with the tool's real schema, blocking until it answers. */
function validateOnHost(rpc: MessagePort, flag: Int32Array, tool: string, json: Json): Validated {
  Atomics.store(flag, 0, 0);
  rpc.postMessage({ kind: 'validate', tool, json } satisfies FromWorker);
  Atomics.wait(flag, 0, 0);
  return receiveMessageOnPort(rpc)!.message as Validated;
}

/**
 * A proxy of a host tool. `answers` keeps the host's validations for the program: a
 * program re-runs from the start after each asynchronous call (see eval/index.ts), and
 * each run checks every call's arguments again; a schema's answer for the same arguments
 * is the same, so it crosses the thread boundary once.
 */
function proxyTool(
  t: RunRequest['tools'][number],
  rpc: MessagePort,
  flag: Int32Array,
  answers: Map<string, Validated>,
): ToolDef {
  const input = {
    safeParse(json: Json) {
      const key = `${t.name} ${JSON.stringify(json)}`;
      let v = answers.get(key);
      if (v === undefined) {
        v = validateOnHost(rpc, flag, t.name, json);
        answers.set(key, v);
      }
      return v.success ? { success: true, data: v.data } : { success: false, error: { issues: v.issues } };
    },
  };
  return {
    name: t.name,
    description: t.description,
    sideEffect: t.sideEffect,
    keyShape: t.keyShape,
    input: input as unknown as ToolDef['input'],
    handler: (args: Json, ctx) =>
      new Promise<Json>((resolve, reject) => {
        const id = nextCall++;
        calls.set(id, { resolve, reject });
        ctx.signal.addEventListener('abort', () => post({ kind: 'abort', id }), { once: true });
        post({ kind: 'call', id, tool: t.name, args, idempotencyKey: ctx.idempotencyKey, taskId: ctx.taskId });
      }),
  };
}

async function execute(req: RunRequest, rpc: MessagePort, flag: Int32Array): Promise<WireResult> {
  const t0 = performance.now();
  const answers = new Map<string, Validated>();
  const tools = req.tools.map((t) => proxyTool(t, rpc, flag, answers));
  const effectNames = new Set(req.tools.filter((t) => t.effect).map((t) => t.name));
  try {
    const { namespace, history: historyValues, reused } = await readRequest(req, tools);
    const opts: RunOptions = {
      context: req.context,
      ...(req.dataNamespaces ? { dataNamespaces: req.dataNamespaces } : {}),
      tools,
      journal: req.journal === null ? null : new Map(req.journal),
      summaries: new Map(req.summaries),
      namespace,
      history: historyValues,
      limits: req.limits,
      onJournal: (change) => post({ kind: 'journal', ...change }),
      ...(req.runId !== undefined ? { runId: req.runId } : {}),
      ...(req.effects
        ? {
            effects: {
              runId: req.effects.runId,
              isEffect: (t: ToolDef) => effectNames.has(t.name),
              results: new Map(req.effects.results),
              errors: new Map(req.effects.errors),
              inlineResults: new Map(req.effects.inlineResults),
            },
          }
        : {}),
    };
    return { ...toWire(await run(req.source, opts), req.limits.maxCollectionSize, namespace, req.namespace), reused };
  } catch (err) {
    const e =
      err instanceof PtcError
        ? err
        : new PtcError('type_error', `the sandbox could not run the program: ${(err as Error).message}`);
    return { ...emptyWire(req, performance.now() - t0), status: 'error', error: errorWire(e) };
  }
}

/**
 * The namespace and `*1 *2 *3` of a request as values. Entries this thread read for the
 * same mission's earlier program are taken as they were read (see namespace-cache.ts).
 */
async function readRequest(
  req: RunRequest,
  tools: ToolDef[],
): Promise<{ namespace: Map<string, Value>; history: Value[]; reused: number }> {
  const mission = req.effects?.runId ?? req.runId;
  const names = Object.keys(req.namespace);
  if (names.length === 0 && req.history.length === 0) {
    if (mission !== undefined) namespaces.drop(mission);
    return { namespace: new Map(), history: [], reused: 0 };
  }
  const context = readingContext(
    req.limits,
    req.tools.map((t) => t.name),
  );
  const known = mission === undefined ? new Map<string, Value>() : namespaces.reusable(mission, context, req.namespace);
  const reused = known.size;
  // history values may name namespace entries: read them together, then apart
  const history = (i: number) => ` *${i + 1}`;
  const all = await readRecord(
    { ...req.namespace, ...Object.fromEntries(req.history.map((src, i) => [history(i), src])) },
    { tools, limits: req.limits, known },
  );
  const historyValues = req.history.map((_, i) => all.get(history(i)) ?? null);
  req.history.forEach((_, i) => all.delete(history(i)));
  if (mission !== undefined) namespaces.keep(mission, context, req.namespace, all);
  return { namespace: all, history: historyValues, reused };
}

/** The request's namespace unchanged (the host has every value). */
function emptyWire(req: RunRequest, durationMs: number): WireResult {
  return {
    status: 'error',
    journal: req.journal,
    summaries: req.summaries,
    names: Object.keys(req.namespace),
    namespace: {},
    prints: [],
    toolCalls: [],
    warnings: [],
    fuelUsed: 0,
    durationMs,
    reused: 0,
  };
}

const errorWire = (e: PtcError) => ({
  code: e.code,
  message: e.message,
  span: e.span,
  hint: e.hint,
  phase: e.phase,
  details: e.details as Record<string, unknown> | undefined,
});

const sourceOf = (v: Value, maxItems?: number): string =>
  v instanceof FnValue ? v.toSource() : valueSource(v, { maxItems: maxItems ?? 1_000_000 });

function toWire(
  r: RunResult,
  maxItems: number | undefined,
  given: ReadonlyMap<string, Value>,
  sent: Readonly<Record<string, string>>,
): Omit<WireResult, 'reused'> {
  try {
    return wireOf(r, maxItems, given, sent);
  } catch (err) {
    // a value too big to carry back (built by doubling) is the program's limit, not ours
    if (!(err instanceof PtcError)) throw err;
    const empty = {
      journal: r.journal === null ? null : [...r.journal],
      summaries: [...r.summaries],
      names: [],
      namespace: {},
      prints: r.prints,
      toolCalls: r.toolCalls,
      warnings: r.warnings,
      fuelUsed: r.fuelUsed,
      durationMs: r.durationMs,
    };
    return { ...empty, status: 'error', error: errorWire(err) };
  }
}

/**
 * The entries a program defined or changed, as source; the host has the others: the
 * values it sent, which the program left as they were or defined again to the same
 * source (a model often repeats its helpers).
 */
function changedEntries(
  ns: ReadonlyMap<string, Value>,
  given: ReadonlyMap<string, Value>,
  sent: Readonly<Record<string, string>>,
  maxItems: number,
): Record<string, string> {
  const changed = new Map<string, Value>();
  for (const [name, v] of ns) if (!given.has(name) || given.get(name) !== v) changed.set(name, v);
  const out = serializeNamespace(changed, { maxItems });
  for (const name of changed.keys()) if (given.has(name) && sent[name] === out[name]) delete out[name];
  return out;
}

function wireOf(
  r: RunResult,
  maxItems: number | undefined,
  given: ReadonlyMap<string, Value>,
  sent: Readonly<Record<string, string>>,
): Omit<WireResult, 'reused'> {
  const base = {
    journal: r.journal === null ? null : [...r.journal],
    summaries: [...r.summaries],
    names: [...r.namespace.keys()],
    namespace: changedEntries(r.namespace, given, sent, maxItems ?? 1_000_000),
    prints: r.prints,
    toolCalls: r.toolCalls,
    warnings: r.warnings,
    fuelUsed: r.fuelUsed,
    durationMs: r.durationMs,
  };
  switch (r.status) {
    case 'ok':
      return { ...base, status: 'ok', value: sourceOf(r.value, maxItems), returned: r.returned };
    case 'fail':
      return { ...base, status: 'fail', value: sourceOf(r.value, maxItems) };
    case 'suspended':
      return { ...base, status: 'suspended', effects: r.effects };
    case 'error':
      return { ...base, status: 'error', error: errorWire(r.error) };
  }
}

post({ kind: 'ready' });
