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
import { deserializeNamespace, run, serializeNamespace } from '../lisp/index.ts';
import { valueSource } from '../lisp/printer/index.ts';
import type { ToolDef } from '../lisp/tools.ts';
import { FnValue, type Value } from '../lisp/values.ts';
import type { FromWorker, RunRequest, ToWorker, Validated, WireResult } from './wire.ts';

const port = parentPort!;
let nextCall = 1;
const calls = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void }>();

/** The validation channel, sent once when the thread starts (`init`). */
let rpc: { port: MessagePort; flag: Int32Array } | undefined;

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

function proxyTool(t: RunRequest['tools'][number], rpc: MessagePort, flag: Int32Array): ToolDef {
  const input = {
    safeParse(json: Json) {
      const v = validateOnHost(rpc, flag, t.name, json);
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
  const tools = req.tools.map((t) => proxyTool(t, rpc, flag));
  const effectNames = new Set(req.tools.filter((t) => t.effect).map((t) => t.name));
  try {
    // history values may name namespace entries: read them together, then apart
    const history = (i: number) => ` *${i + 1}`;
    const all = await deserializeNamespace({ ...req.namespace, ...Object.fromEntries(req.history.map((src, i) => [history(i), src])) }, { tools, limits: req.limits });
    const historyValues = req.history.map((_, i) => all.get(history(i)) ?? null);
    req.history.forEach((_, i) => all.delete(history(i)));
    const namespace = all;
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
        ? { effects: { runId: req.effects.runId, isEffect: (t: ToolDef) => effectNames.has(t.name), results: new Map(req.effects.results), errors: new Map(req.effects.errors), inlineResults: new Map(req.effects.inlineResults) } }
        : {}),
    };
    return toWire(await run(req.source, opts), req.limits.maxCollectionSize);
  } catch (err) {
    const e = err instanceof PtcError ? err : new PtcError('type_error', `the sandbox could not run the program: ${(err as Error).message}`);
    return { ...emptyWire(req, performance.now() - t0), status: 'error', error: errorWire(e) };
  }
}

function emptyWire(req: RunRequest, durationMs: number): WireResult {
  return { status: 'error', journal: req.journal, summaries: req.summaries, namespace: req.namespace, prints: [], toolCalls: [], warnings: [], fuelUsed: 0, durationMs };
}

const errorWire = (e: PtcError) => ({ code: e.code, message: e.message, span: e.span, hint: e.hint, phase: e.phase, details: e.details as Record<string, unknown> | undefined });

const sourceOf = (v: Value, maxItems?: number): string => (v instanceof FnValue ? v.toSource() : valueSource(v, { maxItems: maxItems ?? 1_000_000 }));

function toWire(r: RunResult, maxItems: number | undefined): WireResult {
  try {
    return wireOf(r, maxItems);
  } catch (err) {
    // a value too big to carry back (built by doubling) is the program's limit, not ours
    if (!(err instanceof PtcError)) throw err;
    const empty = { journal: r.journal === null ? null : [...r.journal], summaries: [...r.summaries], namespace: {}, prints: r.prints, toolCalls: r.toolCalls, warnings: r.warnings, fuelUsed: r.fuelUsed, durationMs: r.durationMs };
    return { ...empty, status: 'error', error: errorWire(err) };
  }
}

function wireOf(r: RunResult, maxItems: number | undefined): WireResult {
  const base = {
    journal: r.journal === null ? null : [...r.journal],
    summaries: [...r.summaries],
    namespace: serializeNamespace(r.namespace, { maxItems: maxItems ?? 1_000_000 }),
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
