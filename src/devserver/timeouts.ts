/**
 * The engine's hooks: which deadlines a run needs and what happens when one passes (see
 * deadlines.ts), and what a closed run means to others. Wired here, above the domain
 * modules, so that the engine and lifecycle need not import them.
 */
import { activityDeadlines, onActivityDeadline } from './activities.ts';
import { onRunClosed } from './children.ts';
import { onRunDeadline, runDeadlines } from './closing.ts';
import type { Deadline } from './deadlines.ts';
import type { Engine, EngineHooks } from './engine.ts';
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
  return { deadlinesOf, onDeadline, onChange, onRunClosed };
}
