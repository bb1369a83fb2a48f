/**
 * GetWorkflowExecutionHistory: full fetch with paging, long poll for new events
 * (waitNewEvent) and the CLOSE_EVENT filter that `handle.result()` polls with.
 * Following continue-as-new is the client's job (it reads newExecutionRunId from the
 * close event), which this supports by answering for any run id, closed or not.
 */
import { Engine, LONG_POLL_MS } from './engine.ts';
import { invalidArgument } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { lastEvent } from './history.ts';
import { RUNNING } from './model.ts';
import type { Msg } from './proto.ts';

const DEFAULT_PAGE_SIZE = 1000;

interface PageToken {
  runId: string;
  nextEventId: number;
}

function encodePageToken(token: PageToken): string {
  return Buffer.from(JSON.stringify(token), 'utf8').toString('base64');
}

function decodePageToken(bytes: string | undefined): PageToken | undefined {
  if (!bytes) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes, 'base64').toString('utf8')) as PageToken;
  } catch {
    throw invalidArgument('invalid next page token');
  }
}

export async function getWorkflowExecutionHistory(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  const token = decodePageToken(request.nextPageToken);
  const execution = { workflowId: request.execution?.workflowId, runId: request.execution?.runId || token?.runId };
  const run = engine.run(request.namespace, execution);
  const wait = !!request.waitNewEvent;

  if (request.historyEventFilterType === 'HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT') {
    if (wait) await engine.waitFor(run, call, LONG_POLL_MS, () => run.status !== RUNNING);
    if (run.status === RUNNING) {
      return { history: { events: [] }, nextPageToken: encodePageToken({ runId: run.runId, nextEventId: 0 }) };
    }
    return { history: { events: [lastEvent(run)] } };
  }

  const from = token?.nextEventId || 1;
  if (wait) await engine.waitFor(run, call, LONG_POLL_MS, () => run.events.length >= from || run.status !== RUNNING);
  const pageSize = Number(request.maximumPageSize) || DEFAULT_PAGE_SIZE;
  const events = run.events.slice(from - 1, from - 1 + pageSize);
  const next = from + events.length;
  const more = next <= run.events.length || (wait && run.status === RUNNING);
  return {
    history: { events },
    nextPageToken: more ? encodePageToken({ runId: run.runId, nextEventId: next }) : undefined,
    archived: false,
  };
}

export function getWorkflowExecutionHistoryReverse(engine: Engine, request: Msg): Msg {
  const run = engine.run(request.namespace, request.execution);
  const token = decodePageToken(request.nextPageToken);
  const end = token?.nextEventId ?? run.events.length;
  const pageSize = Number(request.maximumPageSize) || DEFAULT_PAGE_SIZE;
  const start = Math.max(0, end - pageSize);
  const events = run.events.slice(start, end).reverse();
  return {
    history: { events },
    nextPageToken: start > 0 ? encodePageToken({ runId: run.runId, nextEventId: start }) : undefined,
  };
}
