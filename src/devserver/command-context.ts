/**
 * What a command handler works with while a workflow task completion is applied. Apart
 * from commands.ts (the table of handlers), so the domain modules that handle commands
 * need not import the module that imports them all.
 */
import type { Engine } from './engine.ts';
import type { RunState } from './model.ts';
import type { Msg } from './proto.ts';

export interface CommandContext {
  engine: Engine;
  run: RunState;
  completedEventId: number;
  identity: string;
  /** Protocol messages of the completion by id (updates). */
  messages: Map<string, Msg>;
  /** Set when a command added an event the workflow must see in a new task. */
  needsTask: boolean;
  /** Activities the worker asked to run eagerly (returned with the completion response). */
  eagerActivities: number[];
  /** Effects on other workflows, run after every command event of the completion is written. */
  deferred: Array<() => void>;
}

/** Events of workflow-task commands carry the command's user metadata (summaries). */
export function commandMetadata(command: Msg): Msg {
  return command.userMetadata ? { userMetadata: command.userMetadata } : {};
}
