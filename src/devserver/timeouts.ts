/** Which deadlines a run needs, and what happens when one passes (see deadlines.ts). */
import { activityDeadlines, onActivityDeadline } from './activities.ts';
import type { Deadline } from './deadlines.ts';
import type { Engine, EngineHooks } from './engine.ts';
import { onRunDeadline, runDeadlines } from './lifecycle.ts';
import { RUNNING, type RunState } from './model.ts';
import { onTimerDeadline, timerDeadlines } from './timers.ts';
import { onWorkflowTaskDeadline, workflowTaskDeadlines } from './workflow-tasks.ts';

export function deadlinesOf(run: RunState): Deadline[] {
  if (run.status !== RUNNING) return [];
  return [...runDeadlines(run), ...workflowTaskDeadlines(run), ...activityDeadlines(run), ...timerDeadlines(run)];
}

export function onDeadline(engine: Engine, run: RunState, name: string): void {
  if (run.status !== RUNNING) return;
  const kind = name.slice(0, name.indexOf(':'));
  if (kind === 'run') onRunDeadline(engine, run, name);
  else if (kind === 'wft') onWorkflowTaskDeadline(engine, run, name);
  else if (kind === 'activity') onActivityDeadline(engine, run, name);
  else if (kind === 'timer') onTimerDeadline(engine, run, name);
}

export function hooks(onChange: EngineHooks['onChange']): EngineHooks {
  return { deadlinesOf, onDeadline, onChange };
}
