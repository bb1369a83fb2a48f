/**
 * Commands from a completed workflow task, applied in order. Each supported command
 * writes its event(s) exactly as the real server does; anything else is rejected
 * before any event is written (see commandProblem). The table of handlers sits above the
 * domain modules that implement them; what a handler gets is command-context.ts.
 */
import * as activities from './activities.ts';
import * as children from './children.ts';
import * as closing from './closing.ts';
import { type CommandContext, commandMetadata } from './command-context.ts';
import type { Engine } from './engine.ts';
import { appendNew } from './history.ts';
import type { NamespaceState, RunState } from './model.ts';
import { durationMs, type Msg } from './proto.ts';
import * as timers from './timers.ts';
import * as updates from './updates.ts';
import { mergeMemo, mergeSearchAttributes, noMapping, undefinedSearchAttributes } from './namespaces.ts';

export interface CompletionOutcome {
  needsTask: boolean;
  eagerActivities: number[];
}

type CommandHandler = (ctx: CommandContext, attributes: Msg, command: Msg) => void;

const HANDLERS: Record<string, [attributesField: string, handler: CommandHandler]> = {
  COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: ['scheduleActivityTaskCommandAttributes', activities.scheduleFromCommand],
  COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK: [
    'requestCancelActivityTaskCommandAttributes',
    activities.cancelFromCommand,
  ],
  COMMAND_TYPE_START_TIMER: ['startTimerCommandAttributes', timers.startFromCommand],
  COMMAND_TYPE_CANCEL_TIMER: ['cancelTimerCommandAttributes', timers.cancelFromCommand],
  COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION: ['completeWorkflowExecutionCommandAttributes', closing.completeFromCommand],
  COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION: ['failWorkflowExecutionCommandAttributes', closing.failFromCommand],
  COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION: ['cancelWorkflowExecutionCommandAttributes', closing.cancelFromCommand],
  COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION: [
    'continueAsNewWorkflowExecutionCommandAttributes',
    closing.continueAsNewFromCommand,
  ],
  COMMAND_TYPE_RECORD_MARKER: ['recordMarkerCommandAttributes', recordMarker],
  COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: [
    'upsertWorkflowSearchAttributesCommandAttributes',
    upsertSearchAttributes,
  ],
  COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: ['modifyWorkflowPropertiesCommandAttributes', modifyProperties],
  COMMAND_TYPE_PROTOCOL_MESSAGE: ['protocolMessageCommandAttributes', protocolMessage],
  COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION: [
    'startChildWorkflowExecutionCommandAttributes',
    children.startChildFromCommand,
  ],
  COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION: [
    'requestCancelExternalWorkflowExecutionCommandAttributes',
    children.cancelExternalFromCommand,
  ],
  COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION: [
    'signalExternalWorkflowExecutionCommandAttributes',
    children.signalExternalFromCommand,
  ],
};

/** Why a command cannot be carried out: the WorkflowTaskFailed cause and message. */
export interface CommandProblem {
  cause: string;
  message: string;
}

/**
 * Checks a command before anything is written, so a bad completion fails the task
 * as a whole, as in the real server. Unsupported command types name themselves.
 */
export function commandProblem(ns: NamespaceState, command: Msg): CommandProblem | undefined {
  const type: string = command.commandType ?? 'COMMAND_TYPE_UNSPECIFIED';
  if (!HANDLERS[type]) {
    return {
      cause: 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND',
      message: `${type} is not supported by the navigator dev server`,
    };
  }
  if (type === 'COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK') {
    const a = command.scheduleActivityTaskCommandAttributes ?? {};
    if (!durationMs(a.startToCloseTimeout) && !durationMs(a.scheduleToCloseTimeout)) {
      return {
        cause: 'WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES',
        message: 'A valid StartToClose or ScheduleToCloseTimeout is not set on ScheduleActivityTaskCommand.',
      };
    }
  }
  if (type === 'COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES') {
    const unknown = undefinedSearchAttributes(
      ns,
      command.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes,
    );
    if (unknown.length) {
      return { cause: 'WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES', message: noMapping(ns, unknown[0]!) };
    }
  }
  return undefined;
}

export function applyCompletion(
  engine: Engine,
  run: RunState,
  request: Msg,
  completedEventId: number,
): CompletionOutcome {
  const messages = new Map<string, Msg>((request.messages ?? []).map((m: Msg) => [m.id, m]));
  const ctx: CommandContext = {
    engine,
    run,
    completedEventId,
    identity: request.identity ?? '',
    messages,
    needsTask: false,
    eagerActivities: [],
    deferred: [],
  };
  for (const command of request.commands ?? []) {
    const [field, handler] = HANDLERS[command.commandType]!;
    handler(ctx, command[field] ?? {}, command);
  }
  for (const effect of ctx.deferred) effect();
  // Messages without a ProtocolMessage command (rejections, mostly) are handled last.
  for (const message of [...messages.values()]) updates.handleMessage(ctx, message);
  return { needsTask: ctx.needsTask, eagerActivities: ctx.eagerActivities };
}

function recordMarker(ctx: CommandContext, a: Msg, command: Msg): void {
  appendNew(
    ctx.run,
    'MarkerRecorded',
    {
      markerName: a.markerName,
      details: a.details,
      header: a.header,
      failure: a.failure,
      workflowTaskCompletedEventId: ctx.completedEventId,
    },
    commandMetadata(command),
  );
}

function upsertSearchAttributes(ctx: CommandContext, a: Msg): void {
  ctx.run.searchAttributes = mergeSearchAttributes(ctx.run.searchAttributes, a.searchAttributes);
  appendNew(ctx.run, 'UpsertWorkflowSearchAttributes', {
    workflowTaskCompletedEventId: ctx.completedEventId,
    searchAttributes: a.searchAttributes,
  });
}

function modifyProperties(ctx: CommandContext, a: Msg): void {
  ctx.run.memo = mergeMemo(ctx.run.memo, a.upsertedMemo);
  appendNew(ctx.run, 'WorkflowPropertiesModified', {
    workflowTaskCompletedEventId: ctx.completedEventId,
    upsertedMemo: a.upsertedMemo,
  });
}

function protocolMessage(ctx: CommandContext, a: Msg): void {
  const message = ctx.messages.get(a.messageId);
  if (message) updates.handleMessage(ctx, message);
}
