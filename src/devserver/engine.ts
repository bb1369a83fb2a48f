/**
 * The engine holds the server state and the machinery around it (task queues, armed
 * deadlines, waiting calls, persistence). Domain behaviour lives in the modules named
 * for it (workflow-tasks, activities, timers, ...), which all work through this class.
 */
import { randomUUID } from 'node:crypto';
import { Deadlines, type Deadline } from './deadlines.ts';
import { notFound, RpcError } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { chainKey, RUNNING, runKey, type RunState, type ServerState } from './model.ts';
import type { Msg } from './proto.ts';
import { TaskQueues } from './task-queues.ts';
import { status } from '@grpc/grpc-js';

/** A workflow-queue ticket: a workflow task or a legacy query for a run. */
export type WorkflowTicket = { kind: 'task'; run: string; dispatchId: string } | { kind: 'query'; queryId: string };
export type ActivityTicket = { run: string; scheduledEventId: number; dispatchId: string };

export interface EngineHooks {
  /** Deadlines the run currently needs (see deadlines.ts). */
  deadlinesOf(run: RunState): Deadline[];
  /** Called when one of them passes. */
  onDeadline(engine: Engine, run: RunState, name: string): void;
  /**
   * Called after every change, naming what changed (a top-level map of the state and a
   * key in it, a whole map, or nothing: everything) so persistence writes only that.
   */
  onChange(collection?: string, key?: string): void;
  /** Called once a run has closed, for what it means to other runs (children.ts). */
  onRunClosed(engine: Engine, run: RunState, eventType: string, attributes: Msg): void;
}

/** Long polls answer empty before the SDK's own ~70 s poll deadline. */
const TASK_POLL_MS = 50_000;
/** History and update long polls return early so clients re-poll with fresh deadlines. */
export const LONG_POLL_MS = 20_000;

export class Engine {
  readonly workflowQueues = new TaskQueues<WorkflowTicket>();
  readonly activityQueues = new TaskQueues<ActivityTicket>();
  private readonly deadlines: Deadlines;
  private readonly watchers = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(
    readonly state: ServerState,
    private readonly hooks: EngineHooks,
  ) {
    this.deadlines = new Deadlines((owner, name) => {
      const run = this.state.runs[owner];
      if (run && !this.closed) this.hooks.onDeadline(this, run, name);
    });
  }

  static newId(): string {
    return randomUUID();
  }

  // --- lookups ---------------------------------------------------------------------

  namespace(name: string) {
    const ns = this.state.namespaces[name || 'default'];
    if (!ns) {
      throw new RpcError(status.NOT_FOUND, `Namespace ${name} is not found.`, {
        type: 'temporal.api.errordetails.v1.NamespaceNotFoundFailure',
        value: { namespace: name },
      });
    }
    return ns;
  }

  currentRun(namespace: string, workflowId: string): RunState | undefined {
    const chain = this.state.chains[chainKey(namespace, workflowId)];
    const last = chain?.[chain.length - 1];
    return last ? this.state.runs[runKey(namespace, workflowId, last)] : undefined;
  }

  /** The run named by a WorkflowExecution; an empty runId means the current run. */
  run(namespace: string, execution: Msg | undefined): RunState {
    this.namespace(namespace);
    const workflowId = execution?.workflowId ?? '';
    const run = execution?.runId
      ? this.state.runs[runKey(namespace, workflowId, execution.runId)]
      : this.currentRun(namespace, workflowId);
    if (!run) throw notFound(`workflow not found for ID: ${workflowId}`);
    return run;
  }

  runningRun(namespace: string, execution: Msg | undefined): RunState {
    const run = this.run(namespace, execution);
    if (run.status !== RUNNING) throw notFound('workflow execution already completed');
    return run;
  }

  addRun(run: RunState): void {
    const key = runKey(run.namespace, run.workflowId, run.runId);
    this.state.runs[key] = run;
    const chain = chainKey(run.namespace, run.workflowId);
    (this.state.chains[chain] ??= []).push(run.runId);
    // Chains change only here and in retention, so touch() need not rewrite them (a
    // long continue-as-new chain would be written on every change of its current run).
    this.hooks.onChange('runs', key);
    this.hooks.onChange('chains', chain);
  }

  static keyOf(run: RunState): string {
    return runKey(run.namespace, run.workflowId, run.runId);
  }

  // --- change propagation ----------------------------------------------------------

  /** Call after every change to a run: re-arms its deadlines, wakes waiters, persists. */
  touch(run: RunState): void {
    run.stateTransitions++;
    const key = Engine.keyOf(run);
    this.deadlines.reconcile(key, this.hooks.deadlinesOf(run));
    for (const wake of [...(this.watchers.get(key) ?? [])]) wake();
    this.hooks.onChange('runs', key);
  }

  /** Re-arms deadlines of every run (after restoring state). */
  rearmAll(): void {
    for (const [key, run] of Object.entries(this.state.runs))
      this.deadlines.reconcile(key, this.hooks.deadlinesOf(run));
  }

  /**
   * Call after a change outside touch(): `changed('namespaces', name)` for one entry of a
   * top-level map of the state (also a deleted one), `changed('namespaces')` for the whole
   * map, `changed()` when unsure (persistence then rewrites the whole state).
   */
  changed(collection?: string, key?: string): void {
    this.hooks.onChange(collection, key);
  }

  /** Call once a run has closed, after its closing event (see EngineHooks.onRunClosed). */
  runClosed(run: RunState, eventType: string, attributes: Msg): void {
    this.hooks.onRunClosed(this, run, eventType, attributes);
  }

  /**
   * Resolves once `ready()` holds, the wait times out, the call is cancelled or the
   * server shuts down; callers re-check state afterwards.
   */
  waitFor(run: RunState, call: CallContext, maxMs: number, ready: () => boolean): Promise<void> {
    if (ready() || this.closed) return Promise.resolve();
    const key = Engine.keyOf(run);
    const deadline = call.deadline ? Math.min(maxMs, call.deadline - Date.now() - 500) : maxMs;
    return new Promise((resolve) => {
      const set = this.watchers.get(key) ?? new Set();
      this.watchers.set(key, set);
      const finish = () => {
        clearTimeout(timer);
        set.delete(check);
        if (set.size === 0) this.watchers.delete(key);
        resolve();
      };
      const check = () => {
        if (ready() || this.closed) finish();
      };
      const timer = setTimeout(finish, Math.max(0, deadline));
      set.add(check);
      call.onCancel(finish);
    });
  }

  /** Poll wait: at most TASK_POLL_MS, and always before the caller's deadline. */
  static pollWait(call: CallContext): number {
    return call.deadline ? Math.min(TASK_POLL_MS, call.deadline - Date.now() - 1000) : TASK_POLL_MS;
  }

  /**
   * Long-polls one task queue: `start` turns a ticket into the response, or gives undefined
   * for a stale ticket and the poll goes on. Answers empty when the poll wait passes, the
   * call is cancelled or the engine closes; a ticket that arrives for a cancelled call goes
   * back on the queue so another poller gets it (the worker that polled is gone).
   */
  async pollTask<T>(
    queues: TaskQueues<T>,
    key: string,
    call: CallContext,
    start: (ticket: T) => Msg | undefined,
  ): Promise<Msg> {
    const waitUntil = Date.now() + Engine.pollWait(call);
    while (!this.closed && !call.cancelled()) {
      const ticket = await queues.poll(key, call, waitUntil - Date.now());
      if (!ticket) break;
      if (call.cancelled()) {
        queues.add(key, ticket);
        break;
      }
      const response = start(ticket);
      if (response) return response;
    }
    return {};
  }

  isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.deadlines.clearAll();
    this.workflowQueues.releaseAll();
    this.activityQueues.releaseAll();
    for (const set of this.watchers.values()) for (const wake of [...set]) wake();
  }
}

// --- task tokens -----------------------------------------------------------------------

export interface TaskToken {
  kind: 'workflow' | 'activity' | 'query';
  run?: string;
  dispatchId?: string;
  scheduledEventId?: number;
  attempt?: number;
  queryId?: string;
}

export function encodeToken(token: TaskToken): string {
  return Buffer.from(JSON.stringify(token), 'utf8').toString('base64');
}

export function decodeToken(bytes: string | undefined, kind: TaskToken['kind']): TaskToken {
  try {
    const token = JSON.parse(Buffer.from(bytes ?? '', 'base64').toString('utf8')) as TaskToken;
    if (token.kind === kind) return token;
  } catch {
    // fall through: a malformed token is an invalid argument
  }
  throw new RpcError(status.INVALID_ARGUMENT, 'invalid task token');
}
