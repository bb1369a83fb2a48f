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
import type { Json } from '../workflows/contract.ts';
import { MISSION_WORKFLOW, type MissionHandle, type StartMissionOptions, getMission, startMission } from './missions.ts';
import { type ResumeOptions, resumeMission } from './resume.ts';
import { type MissionSchedule, type MissionScheduleOptions, createMissionSchedule, getMissionSchedule, listMissionSchedules } from './schedules.ts';
import { PLAN_WORKFLOW, type PlanHandle, type StartPlanOptions, getPlan, startPlan } from './plans.ts';

export interface NavigatorClientOptions {
  client: Client;
  /** the task queue of the Navigator workers @default NAVIGATOR_TASK_QUEUE, else `navigator` */
  taskQueue?: string;
}

export interface ListedWorkflow {
  workflowId: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, ... */
  status: string;
  startTime: Date;
}

export class NavigatorClient {
  readonly client: Client;
  readonly taskQueue: string;

  constructor(opts: NavigatorClientOptions) {
    this.client = opts.client;
    this.taskQueue = opts.taskQueue ?? process.env.NAVIGATOR_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  }

  /** Starts a mission of `agent`; the input is checked by the workflow's schema first. */
  start(agent: string, input: Json = {}, opts: Omit<StartMissionOptions, 'agent' | 'input' | 'taskQueue'> & { taskQueue?: string } = {}): Promise<MissionHandle> {
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
  schedule(agent: string, input: Json, opts: Omit<MissionScheduleOptions, 'agent' | 'input' | 'taskQueue'> & { taskQueue?: string }): Promise<MissionSchedule> {
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
    const type = opts.kind === 'plans' ? PLAN_WORKFLOW : MISSION_WORKFLOW;
    const query = [`WorkflowType = '${type}'`, opts.query].filter(Boolean).join(' AND ');
    const out: ListedWorkflow[] = [];
    for await (const w of this.client.workflow.list({ query })) {
      out.push({ workflowId: w.workflowId, status: w.status.name, startTime: w.startTime });
      if (out.length >= (opts.limit ?? 100)) break;
    }
    return out;
  }
}
