/** Durable timers: StartTimer / CancelTimer commands and firing. */
import { type CommandContext, commandMetadata } from './command-context.ts';
import type { Engine } from './engine.ts';
import { appendNew, attributesOf, newEvent, record } from './history.ts';
import type { RunState } from './model.ts';
import { durationMs, type Msg } from './proto.ts';
import { scheduleWorkflowTask } from './workflow-task-schedule.ts';

export function startFromCommand(ctx: CommandContext, a: Msg, command: Msg): void {
  const startedEventId = appendNew(
    ctx.run,
    'TimerStarted',
    {
      timerId: a.timerId,
      startToFireTimeout: a.startToFireTimeout,
      workflowTaskCompletedEventId: ctx.completedEventId,
    },
    commandMetadata(command),
  );
  ctx.run.timers[a.timerId] = {
    timerId: a.timerId,
    startedEventId,
    fireAt: Date.now() + durationMs(a.startToFireTimeout),
  };
}

export function cancelFromCommand(ctx: CommandContext, a: Msg): void {
  const { run } = ctx;
  let startedEventId = run.timers[a.timerId]?.startedEventId;
  delete run.timers[a.timerId];
  if (startedEventId === undefined) {
    // The timer fired while the task ran: like the real server, drop the buffered
    // TimerFired event so the cancel the workflow asked for is what history says.
    const index = run.buffered.findIndex((e) => attributesOf(e, 'TimerFired')?.timerId === a.timerId);
    if (index < 0) return;
    startedEventId = run.buffered[index]!.timerFiredEventAttributes.startedEventId;
    run.buffered.splice(index, 1);
  }
  appendNew(run, 'TimerCanceled', {
    timerId: a.timerId,
    startedEventId,
    workflowTaskCompletedEventId: ctx.completedEventId,
    identity: ctx.identity,
  });
}

export function timerDeadlines(run: RunState): Array<{ name: string; at: number }> {
  return Object.values(run.timers).map((t) => ({ name: `timer:${t.timerId}`, at: t.fireAt }));
}

export function onTimerDeadline(engine: Engine, run: RunState, name: string): void {
  const timerId = name.slice('timer:'.length);
  const timer = run.timers[timerId];
  if (!timer) return;
  delete run.timers[timerId];
  record(run, [newEvent('TimerFired', { timerId, startedEventId: timer.startedEventId })]);
  scheduleWorkflowTask(engine, run);
  engine.touch(run);
}
