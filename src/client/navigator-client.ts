/**
 * `NavigatorClient`: missions and plans from your own code, on a Temporal `Client` you
 * already have (or one made from Temporal's environment configuration).
 *
 * ```ts
 * const navigator = new NavigatorClient({ client, taskQueue: 'navigator' });
 * const m = await navigator.start('wire-transfer', { recipient: 'bob', amount: 5000 });
 * await m.approve({ by: 'ana' });
 * console.log(await m.result(), (await m.audit()).ok);
 * ```
 */
import type { Client } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../temporal/connection.ts';
import { type RunReader, WorkerUnavailableError, readerOf } from '../history/reader.ts';
import type { Json } from '../workflows/mission/contract.ts';
import {
  MISSION_WORKFLOW,
  type MissionHandle,
  type StartMissionOptions,
  getMission,
  startMission,
} from './mission/client.ts';
import { type ResumeOptions, resumeMission } from './mission/resume.ts';
import {
  type MissionSchedule,
  type MissionScheduleOptions,
  createMissionSchedule,
  getMissionSchedule,
  listMissionSchedules,
} from './mission/schedules.ts';
import { PLAN_WORKFLOW, type PlanHandle, type StartPlanOptions, getPlan, startPlan } from './plan/client.ts';
import { type ListedRun, type ListedWorkflow, RUN_KINDS, type RunKind, executionFilter, listedOf } from './runs.ts';

export type { ListedRun, ListedWorkflow, RunKind } from './runs.ts';

export interface NavigatorClientOptions {
  client: Client;
  /** the task queue of the Navigator workers @default NAVIGATOR_TASK_QUEUE, else `navigator` */
  taskQueue?: string;
  /** the Keyword search attribute runs publish their status in (their `statusSearchAttribute`), read by lists @default NAVIGATOR_STATUS_ATTRIBUTE, else `NavigatorStatus` */
  statusAttribute?: string;
  /** how long a query of a running run waits for a worker before failing with a WorkerUnavailableError @default NAVIGATOR_QUERY_TIMEOUT_MS, else 3000 */
  queryTimeoutMs?: number;
}

export class NavigatorClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly statusAttribute: string;

  constructor(opts: NavigatorClientOptions) {
    this.client = opts.client;
    this.taskQueue = opts.taskQueue ?? process.env.NAVIGATOR_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    this.statusAttribute = opts.statusAttribute ?? (process.env.NAVIGATOR_STATUS_ATTRIBUTE || 'NavigatorStatus');
    // closed runs are read from history, running ones queried with this deadline (src/history/reader.ts)
    readerOf(
      this.client.workflow,
      opts.queryTimeoutMs !== undefined ? { queryTimeoutMs: opts.queryTimeoutMs } : undefined,
    );
  }

  /** How this client reads runs: from history when closed, by query with a deadline when running. */
  get reader(): RunReader {
    return readerOf(this.client.workflow);
  }

  /** Starts a mission of `agent`; the input is checked by the workflow's schema first. */
  start(
    agent: string,
    input: Json = {},
    opts: Omit<StartMissionOptions, 'agent' | 'input' | 'taskQueue'> & { taskQueue?: string } = {},
  ): Promise<MissionHandle> {
    return startMission(this.client, { taskQueue: this.taskQueue, ...opts, agent, input });
  }

  mission(id: string): MissionHandle {
    return getMission(this.client, id);
  }

  /** Restarts a stopped mission from its journal as a new mission (see resume.ts). */
  resume(id: string, opts: ResumeOptions = {}): Promise<MissionHandle> {
    return resumeMission(this.client, id, opts);
  }

  /** Starts a plan: the agent's planner writes it from `request`, or `document` gives it. */
  startPlan(opts: Omit<StartPlanOptions, 'taskQueue'> & { taskQueue?: string }): Promise<PlanHandle> {
    return startPlan(this.client, { taskQueue: this.taskQueue, ...opts });
  }

  plan(id: string): PlanHandle {
    return getPlan(this.client, id);
  }

  /** A Temporal Schedule that starts a mission of `agent` at each cron time or interval. */
  schedule(
    agent: string,
    input: Json,
    opts: Omit<MissionScheduleOptions, 'agent' | 'input' | 'taskQueue'> & { taskQueue?: string },
  ): Promise<MissionSchedule> {
    return createMissionSchedule(this.client, { taskQueue: this.taskQueue, ...opts, agent, input });
  }

  missionSchedule(id: string): MissionSchedule {
    return getMissionSchedule(this.client, id);
  }

  listSchedules() {
    return listMissionSchedules(this.client);
  }

  /** Missions (or plans) in Temporal's order (running first, then the most recently closed); `query` adds a visibility filter. */
  async list(opts: { kind?: 'missions' | 'plans'; query?: string; limit?: number } = {}): Promise<ListedWorkflow[]> {
    const kind: RunKind = opts.kind === 'plans' ? 'plan' : 'mission';
    const out: ListedWorkflow[] = [];
    for await (const w of this.executions(kind, opts.query)) {
      out.push(w);
      if (out.length >= (opts.limit ?? 100)) break;
    }
    return out;
  }

  /**
   * Missions and plans with their Navigator status, each kind in Temporal's order; with
   * `status`, only the runs in it (at most `limit` of each kind either way).
   */
  async runs(
    opts: { kinds?: readonly RunKind[]; status?: string; query?: string; limit?: number } = {},
  ): Promise<ListedRun[]> {
    const limit = opts.limit ?? 100;
    const query =
      [opts.status ? executionFilter(opts.status) : undefined, opts.query].filter(Boolean).join(' AND ') || undefined;
    const out: ListedRun[] = [];
    // task queues no worker answered on: their other runs are not asked again (each would wait the query deadline)
    const unanswered = new Set<string>();
    for (const kind of opts.kinds ?? RUN_KINDS) {
      let found = 0;
      for await (const w of this.executions(kind, query)) {
        const status = await this.navigatorStatus(w, unanswered);
        if (opts.status && status !== opts.status) continue;
        out.push({ kind, workflowId: w.workflowId, status, temporalStatus: w.status, startTime: w.startTime });
        if (++found >= limit) break;
      }
    }
    return out;
  }

  /**
   * A run's status as the Navigator names it. A running one is asked: a mission says its
   * own (`waiting` when a decision or an effect waits for a person); a plan is `review`
   * in review, `waiting` while a step waits for an approval or an answer, else its own.
   * A closed one: the status it published last, else Temporal's in lower case. One no
   * worker answers: the status it published last, else `running (no worker)`; with
   * `unanswered`, its task queue is added there, and a run on a queue already in it is
   * not asked.
   */
  async navigatorStatus(w: ListedWorkflow, unanswered?: Set<string>): Promise<string> {
    if (w.status !== 'RUNNING') return w.publishedStatus ?? w.status.toLowerCase();
    const noWorker = w.publishedStatus ?? 'running (no worker)';
    if (w.taskQueue && unanswered?.has(w.taskQueue)) return noWorker;
    try {
      if (w.kind === 'mission') return (await this.mission(w.workflowId).status()).status;
      const view = await this.plan(w.workflowId).status();
      if (view.status === 'review') return 'review';
      return view.approvals.length > 0 || (view.questions ?? []).length > 0 ? 'waiting' : view.status;
    } catch (err) {
      if (err instanceof WorkerUnavailableError) {
        unanswered?.add(err.taskQueue);
        return noWorker;
      }
      // another failure: what the run published, if anything
      return w.publishedStatus ?? 'running (no answer)';
    }
  }

  /** The executions of one workflow type, in Temporal's order. */
  private async *executions(kind: RunKind, filter?: string): AsyncGenerator<ListedWorkflow> {
    const type = kind === 'plan' ? PLAN_WORKFLOW : MISSION_WORKFLOW;
    const query = [`WorkflowType = '${type}'`, filter]
      .filter(Boolean)
      .map((q) => `(${q})`)
      .join(' AND ');
    for await (const w of this.client.workflow.list({ query })) yield listedOf(kind, w, this.statusAttribute);
  }
}
