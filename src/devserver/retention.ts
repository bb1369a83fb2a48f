/**
 * Retention, as the real dev server keeps it: a closed run is deleted once its
 * namespace's retention (default one day) has passed since it closed. A sweep runs at
 * start and then periodically; a chain whose runs are all gone is forgotten too, so its
 * workflow id can be used again as if new.
 */
import type { Engine } from './engine.ts';
import { RUNNING, chainKey, runKey } from './model.ts';

const DAY_MS = 86_400_000;

/** Deletes the closed runs whose retention has passed at `nowMs`; returns how many. */
export function sweepRetention(engine: Engine, nowMs = Date.now()): number {
  const { state } = engine;
  let deleted = 0;
  for (const [key, run] of Object.entries(state.runs)) {
    if (run.status === RUNNING || run.closedAt === undefined) continue;
    const retentionMs = (state.namespaces[run.namespace]?.retentionDays ?? 1) * DAY_MS;
    if (nowMs - run.closedAt < retentionMs) continue;
    delete state.runs[key];
    engine.changed('runs', key);
    const chain = chainKey(run.namespace, run.workflowId);
    const left = (state.chains[chain] ?? []).filter(
      (id) => id !== run.runId && state.runs[runKey(run.namespace, run.workflowId, id)],
    );
    if (left.length) state.chains[chain] = left;
    else delete state.chains[chain];
    engine.changed('chains', chain);
    deleted++;
  }
  return deleted;
}

/** Sweeps now and every `everyMs` (at most an hour, at least a second) until stopped. */
export function startRetention(engine: Engine, everyMs: number): () => void {
  sweepRetention(engine);
  const timer = setInterval(() => sweepRetention(engine), Math.min(Math.max(everyMs, 1000), 3_600_000));
  timer.unref();
  return () => clearInterval(timer);
}
