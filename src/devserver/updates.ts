/**
 * Workflow updates: admission (UpdateWorkflowExecution), delivery to the worker as
 * protocol messages on a workflow task, and the worker's Acceptance / Rejection /
 * Response messages. Accepted and completed updates are written to history; a rejected
 * update leaves no event, exactly like the real server, and neither does the task that
 * carried it when that task was scheduled for the update alone (a speculative task).
 */
import { status } from '@grpc/grpc-js';
import type { CommandContext } from './command-context.ts';
import { Engine, LONG_POLL_MS } from './engine.ts';
import { RpcError } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { appendNew } from './history.ts';
import { RUNNING, type RunState, type UpdateStage, type UpdateState, type WorkflowTaskState } from './model.ts';
import { type Msg, packAny, unpackAny } from './proto.ts';
import { scheduleWorkflowTask } from './workflow-task-schedule.ts';

const ORDER: Record<UpdateStage, number> = { ADMITTED: 1, ACCEPTED: 2, COMPLETED: 3 };
const PREFIX = 'UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_';

function wantedStage(waitPolicy: Msg | undefined): UpdateStage {
  const stage = String(waitPolicy?.lifecycleStage ?? '').replace(PREFIX, '');
  return stage === 'COMPLETED' || stage === 'ADMITTED' ? stage : 'ACCEPTED';
}

export async function updateWorkflowExecution(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  if (!request.request?.input?.name) throw new RpcError(status.INVALID_ARGUMENT, 'Update name is not set on request.');
  const run = engine.run(request.namespace, request.workflowExecution);
  if (request.firstExecutionRunId && request.firstExecutionRunId !== run.firstRunId) {
    throw new RpcError(status.NOT_FOUND, 'workflow execution not found for the given first execution run id');
  }
  const updateId: string = request.request?.meta?.updateId || Engine.newId();
  let update = run.updates[updateId];
  if (!update) {
    if (run.status !== RUNNING) throw new RpcError(status.NOT_FOUND, 'workflow execution already completed');
    update = { updateId, request: request.request, stage: 'ADMITTED' };
    run.updates[updateId] = update;
    scheduleWorkflowTask(engine, run, 1, undefined, true);
    engine.touch(run);
  }
  return waitForStage(engine, run, update, wantedStage(request.waitPolicy), call);
}

export async function pollWorkflowExecutionUpdate(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  const ref = request.updateRef ?? {};
  const run = engine.run(request.namespace, ref.workflowExecution);
  const update = run.updates[ref.updateId ?? ''];
  if (!update) throw new RpcError(status.NOT_FOUND, `update ${ref.updateId} not found`);
  return waitForStage(engine, run, update, wantedStage(request.waitPolicy), call);
}

async function waitForStage(
  engine: Engine,
  run: RunState,
  update: UpdateState,
  wanted: UpdateStage,
  call: CallContext,
): Promise<Msg> {
  const reached = () => ORDER[update.stage] >= ORDER[wanted];
  await engine.waitFor(run, call, LONG_POLL_MS, () => reached() || run.status !== RUNNING);
  if (!reached() && run.status !== RUNNING) {
    // The run closed before the update got where the caller waits for: it never will.
    throw new RpcError(status.NOT_FOUND, 'workflow execution already completed');
  }
  return {
    updateRef: { workflowExecution: { workflowId: run.workflowId, runId: run.runId }, updateId: update.updateId },
    outcome: update.stage === 'COMPLETED' ? update.outcome : undefined,
    stage: PREFIX + update.stage,
  };
}

// --- delivery to workers -------------------------------------------------------------

/** Protocol messages carrying admitted, undelivered update requests to a starting task. */
export function deliverToTask(run: RunState, wft: WorkflowTaskState): Msg[] | undefined {
  const messages: Msg[] = [];
  for (const update of Object.values(run.updates)) {
    if (update.stage !== 'ADMITTED' || update.deliveredInTask) continue;
    update.deliveredInTask = wft.dispatchId;
    messages.push({
      id: `${update.updateId}/request`,
      protocolInstanceId: update.updateId,
      // Processable after the last event before the task started.
      eventId: wft.startedEventId! - 1,
      body: packAny('temporal.api.update.v1.Request', update.request),
    });
  }
  return messages.length ? messages : undefined;
}

/** The task that carried these requests ended without an answer: deliver them again. */
export function undeliver(run: RunState, dispatchId: string): void {
  for (const update of Object.values(run.updates)) {
    if (update.deliveredInTask === dispatchId && update.stage === 'ADMITTED') update.deliveredInTask = undefined;
  }
}

export function hasUndelivered(run: RunState): boolean {
  return Object.values(run.updates).some((u) => u.stage === 'ADMITTED' && !u.deliveredInTask);
}

// --- messages from workers -----------------------------------------------------------

export function handleMessage(ctx: CommandContext, message: Msg): void {
  ctx.messages.delete(message.id);
  const body = unpackAny(message.body);
  if (!body) return;
  const { run } = ctx;
  const updateId: string = message.protocolInstanceId;
  const update = (run.updates[updateId] ??= { updateId, request: {}, stage: 'ADMITTED' });
  const value = body.value;
  switch (body.type) {
    case 'temporal.api.update.v1.Acceptance':
      update.acceptedEventId = appendNew(run, 'WorkflowExecutionUpdateAccepted', {
        protocolInstanceId: updateId,
        acceptedRequestMessageId: value.acceptedRequestMessageId,
        acceptedRequestSequencingEventId: value.acceptedRequestSequencingEventId,
        acceptedRequest: value.acceptedRequest ?? update.request,
      });
      update.stage = 'ACCEPTED';
      break;
    case 'temporal.api.update.v1.Rejection':
      update.stage = 'COMPLETED';
      update.outcome = { failure: value.failure };
      break;
    case 'temporal.api.update.v1.Response':
      appendNew(run, 'WorkflowExecutionUpdateCompleted', {
        meta: value.meta ?? { updateId },
        acceptedEventId: update.acceptedEventId,
        outcome: value.outcome,
      });
      update.stage = 'COMPLETED';
      update.outcome = value.outcome;
      break;
  }
  update.deliveredInTask = undefined;
}
