/**
 * Workflow interceptor of the history reader (src/history/reader.ts), bundled with the
 * workflow code for reading only, never into a worker's bundle. A run's state is read
 * from its history by replaying the history in the calling process: when the replay
 * reaches the end of the history (the workflow task the reader names in the memo it adds
 * to the started event, or the workflow's own end), every query handler the workflow set
 * is called, as a query of that run would be, and the answers leave the sandbox through
 * a sink. Nothing here issues a command: the replay is the same as without it.
 */
import { proxySinks, workflowInfo, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The memo field the reader adds to the copy of the history it replays. */
export const READOUT_MEMO = '__navigatorReadout';

/** What the reader asks for: read out at workflow task `at` (its started event id); `token` names this reading. */
export interface ReadoutRequest {
  at: number;
  token: string;
}

/** One query's answer, or why its handler threw. */
export type QueryAnswer = { ok: unknown } | { error: string };

export interface ReadoutSinks extends Sinks {
  navigatorReadout: {
    /** `answers`: the JSON of a `Record<string, QueryAnswer>` (a snapshot, as a query's payload would be) */
    answers(token: string, historyLength: number, answers: string): void;
  };
}

const { navigatorReadout } = proxySinks<ReadoutSinks>();

/** Queries left out: the pass activity's own input, and the overview (made from the others). */
const SKIPPED = new Set(['passContext', 'overview']);

interface QueryHandlers {
  completed: boolean;
  queryHandlers: Map<string, { handler: (...args: unknown[]) => unknown }>;
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      concludeActivation(input, next) {
        const out = next(input);
        const info = workflowInfo();
        const request = info.memo?.[READOUT_MEMO] as ReadoutRequest | undefined;
        if (!request) return out;
        const activator = (globalThis as { __TEMPORAL_ACTIVATOR__?: QueryHandlers }).__TEMPORAL_ACTIVATOR__;
        if (!activator || (info.historyLength < request.at && !activator.completed)) return out;
        const answers: Record<string, QueryAnswer> = {};
        for (const [name, { handler }] of activator.queryHandlers) {
          if (name.startsWith('__') || SKIPPED.has(name)) continue;
          try {
            answers[name] = { ok: handler() };
          } catch (err) {
            answers[name] = { error: err instanceof Error ? err.message : String(err) };
          }
        }
        navigatorReadout.answers(request.token, info.historyLength, JSON.stringify(answers));
        return out;
      },
    },
  ],
});
