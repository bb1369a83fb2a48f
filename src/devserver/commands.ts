/**
 * Commands from a completed workflow task, applied in order. Each supported command
 * writes its event(s) exactly as the real server does; anything else is rejected
 * before any event is written (see unsupportedCommand).
 */
import * as activities from './activities.ts';
import type { Engine } from './engine.ts';
import { appendNew } from './history.ts';
import * as lifecycle from './lifecycle.ts';
import type { RunState } from './model.ts';
import type { Msg } from './proto.ts';
import * as timers from './timers.ts';
import * as updates from './updates.ts';
import { mergeMemo, mergeSearchAttributes } from './namespaces.ts';

/** Context a command handler needs. */
export interface CommandContext {
  engine: Engine;
  run: RunState;
  completedEventId: number;
  identity: string;
  /** Protocol messages of the completion by id (updates). */
  messages: Map<string, Msg>;
  /** Set when a command added an event the workflow must see in a new task. */
  needsTask: boolean;
}

type CommandHandler = (ctx: CommandContext, attributes: Msg, command: Msg) => void;

const HANDLERS: Record<string, [attributesField: string, handler: CommandHandler]> = {
  COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: ['scheduleActivityTaskCommandAttributes', activities.scheduleFromCommand],
  COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK: ['requestCancelActivityTaskCommandAttributes', activities.cancelFromCommand],
  COMMAND_TYPE_START_TIMER: ['startTimerCommandAttributes', timers.startFromCommand],
  COMMAND_TYPE_CANCEL_TIMER: ['cancelTimerCommandAttributes', timers.cancelFromCommand],
  COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION: ['completeWorkflowExecutionCommandAttributes', lifecycle.completeFromCommand],
  COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION: ['failWorkflowExecutionCommandAttributes', lifecycle.failFromCommand],
  COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION: ['cancelWorkflowExecutionCommandAttributes', lifecycle.cancelFromCommand],
  COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION: [
    'continueAsNewWorkflowExecutionCommandAttributes',
    lifecycle.continueAsNewFromCommand,
  ],
  COMMAND_TYPE_RECORD_MARKER: ['recordMarkerCommandAttributes', recordMarker],
  COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: ['upsertWorkflowSearchAttributesCommandAttributes', upsertSearchAttributes],
  COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: ['modifyWorkflowPropertiesCommandAttributes', modifyProperties],
  COMMAND_TYPE_PROTOCOL_MESSAGE: ['protocolMessageCommandAttributes', protocolMessage],
};

/** A message naming the command if this server cannot carry it out, else undefined. */
export function unsupportedCommand(command: Msg): string | undefined {
  if (HANDLERS[command.commandType]) return undefined;
  return `${command.commandType ?? 'COMMAND_TYPE_UNSPECIFIED'} is not supported by the navigator dev server`;
}

export function applyCompletion(engine: Engine, run: RunState, request: Msg, completedEventId: number): { needsTask: boolean } {
  const messages = new Map<string, Msg>((request.messages ?? []).map((m: Msg) => [m.id, m]));
  const ctx: CommandContext = { engine, run, completedEventId, identity: request.identity ?? '', messages, needsTask: false };
  for (const command of request.commands ?? []) {
    const [field, handler] = HANDLERS[command.commandType]!;
    handler(ctx, command[field] ?? {}, command);
  }
  // Messages without a ProtocolMessage command (rejections, mostly) are handled last.
  for (const message of [...messages.values()]) updates.handleMessage(ctx, message);
  return { needsTask: ctx.needsTask };
}

/** Events of workflow-task commands carry the command's user metadata (summaries). */
export function commandMetadata(command: Msg): Msg {
  return command.userMetadata ? { userMetadata: command.userMetadata } : {};
}

function recordMarker(ctx: CommandContext, a: Msg, command: Msg): void {
  appendNew(
    ctx.run,
    'MarkerRecorded',
    { markerName: a.markerName, details: a.details, header: a.header, failure: a.failure, workflowTaskCompletedEventId: ctx.completedEventId },
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
