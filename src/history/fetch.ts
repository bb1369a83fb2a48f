/**
 * Fetching a mission's histories: every run of its continue-as-new chain, oldest first.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { type DecodeReport, decodePayloads } from '../codec/history.ts';
import type { temporal } from '@temporalio/proto';

export type History = temporal.api.history.v1.IHistory;
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export const EventType = proto.temporal.api.enums.v1.EventType;

export interface RunHistory {
  workflowId: string;
  runId: string;
  history: History;
  /** what decoding its payloads found (fetched histories; absent for one read from a file) */
  decoded?: DecodeReport;
}

/** The chain ending at the latest run of `workflowId` (or at `runId`), oldest first. */
export async function fetchChain(client: Client, workflowId: string, runId?: string): Promise<RunHistory[]> {
  const chain: RunHistory[] = [];
  let current: string | undefined = runId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  while (current) {
    const history: History = await client.workflow.getHandle(workflowId, current).fetchHistory();
    // the audit reads values from history: decode them with the client's codecs (if any)
    const decoded = await decodePayloads(history, client.options.loadedDataConverter.payloadCodecs);
    chain.unshift({ workflowId, runId: current, history, decoded });
    const started: temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes | null | undefined =
      history.events?.[0]?.workflowExecutionStartedEventAttributes;
    current = started?.continuedExecutionRunId || undefined;
  }
  return chain;
}

/** The first payload of a payload list, decoded with the default converter. */
export function decodeFirst<T>(payloads: temporal.api.common.v1.IPayloads | null | undefined): T | undefined {
  const first = payloads?.payloads?.[0];
  return first ? defaultPayloadConverter.fromPayload<T>(first) : undefined;
}

export function decodeAll(payloads: temporal.api.common.v1.IPayloads | null | undefined): unknown[] {
  return (payloads?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p));
}

export const eventId = (e: HistoryEvent): number => Number(e.eventId ?? 0);

/**
 * Histories exported as JSON (`temporal workflow show --output json`, or the Temporal
 * UI's download): one history, or a list of them for a continue-as-new chain, oldest
 * first. The workflow and run ids come from each run's started event.
 */
export function historiesFromJson(text: string, source: string): RunHistory[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((raw, i) => {
    let history: History;
    try {
      history = historyFromJSON(raw);
    } catch (err) {
      throw new Error(
        `${source}${list.length > 1 ? ` (history ${i + 1})` : ''} is not a Temporal history: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!started)
      throw new Error(
        `${source}${list.length > 1 ? ` (history ${i + 1})` : ''}: the first event is not WorkflowExecutionStarted`,
      );
    return {
      workflowId: started.workflowId || `offline-${i + 1}`,
      runId: started.originalExecutionRunId || `run-${i + 1}`,
      history,
    };
  });
}
