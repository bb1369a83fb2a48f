/**
 * What a tool activity answers must reach Temporal history, or an effect would run again:
 * a completion the server refuses (too large) or that fails to encode (the payload store
 * is down) fails the activity, Temporal retries it, and the tool's handler runs a second
 * time. So before an activity returns:
 *
 * - a result over the hard cap (NAVIGATOR_MAX_RESULT_BYTES) is not sent at all;
 * - a large answer is written to the payload store by the activity itself, retried for as
 *   long as `storeRetryMs` allows while it heartbeats, so that the codec finds it stored
 *   at completion and has nothing left that can fail;
 * - with no store, an answer over what history takes is not sent either.
 *
 * A tool that ran with external effects then answers a small marker instead of its result
 * (`unavailableValue`): the task is recorded as done with its result unavailable, the
 * program is told exactly that, and the ledger and audit show it. Any other activity fails
 * with a named, final error (`ResultTooLarge`), or a retryable `PayloadStoreUnavailable`
 * when running it again is harmless.
 */
import type { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Json } from '../kernel/contract.ts';
import type { ResultUnavailable } from '../kernel/schemas.ts';
import { INLINE_LIMIT_BYTES, maxResultBytesFromEnv } from '../payloads/config.ts';
import { type OffloadCodec, formatBytes } from '../payloads/offload-codec.ts';
import { withHeartbeat } from './heartbeat.ts';

const PayloadProto = proto.temporal.api.common.v1.Payload;

export interface ResultRecording {
  /** the worker's claim-check codec (null: no payload store) */
  offload: OffloadCodec | null;
  /** the largest result of one tool call @default 64 MiB (NAVIGATOR_MAX_RESULT_BYTES) */
  maxResultBytes: number;
  /** with no store, the largest answer sent to Temporal @default INLINE_LIMIT_BYTES */
  inlineLimitBytes: number;
  /** how long an activity keeps trying to store a large answer @default 60 s (NAVIGATOR_STORE_RETRY_MS) */
  storeRetryMs: number;
}

export function resultRecording(offload: OffloadCodec | null, env: NodeJS.ProcessEnv = process.env): ResultRecording {
  const retry = Number(env.NAVIGATOR_STORE_RETRY_MS ?? 60_000);
  return {
    offload,
    maxResultBytes: maxResultBytesFromEnv(env),
    inlineLimitBytes: INLINE_LIMIT_BYTES,
    storeRetryMs: Number.isFinite(retry) && retry >= 0 ? retry : 60_000,
  };
}

/** Bytes of a result as JSON (what history would hold). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null));

/** Why a tool's result is over the hard cap, or null when it is not. */
export function overCap(tool: string, result: Json, rec: ResultRecording): ResultUnavailable | null {
  const size = jsonBytes(result);
  if (size <= rec.maxResultBytes) return null;
  return {
    reason: 'result_too_large',
    size,
    message: `result_too_large: tool ${tool} returned ${formatBytes(size)}, over the ${formatBytes(rec.maxResultBytes)} limit for one result (NAVIGATOR_MAX_RESULT_BYTES)`,
  };
}

/** The value a program (and the journal) gets for a call that ran but whose result was not kept. */
export function unavailableValue(tool: string, u: ResultUnavailable): Json {
  return {
    result_unavailable: u.reason,
    tool,
    size: u.size,
    message: `${u.message}. The call ran and is recorded as done: it will not run again, and its result is not available.`,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Makes sure `answer` can be recorded: a large one is stored now (retried, heartbeating).
 * Null when it can; otherwise why not (the activity then answers without it).
 */
export async function prepareAnswer(
  ctx: Context,
  answer: unknown,
  what: string,
  rec: ResultRecording,
  heartbeatEveryMs: number,
): Promise<ResultUnavailable | null> {
  const payload = defaultPayloadConverter.toPayload(answer);
  const size = PayloadProto.encode(payload).finish().length;
  const { offload } = rec;
  if (!offload || size <= offload.thresholdBytes) {
    if (size <= rec.inlineLimitBytes) return null;
    return {
      reason: 'result_too_large',
      size,
      message: `result_too_large: ${what} answered ${formatBytes(size)}, over the ${formatBytes(rec.inlineLimitBytes)} Temporal history takes in one payload, and no payload store is configured (NAVIGATOR_PAYLOAD_STORE=off)`,
    };
  }
  const deadline = Date.now() + rec.storeRetryMs;
  return withHeartbeat(
    ctx,
    heartbeatEveryMs,
    async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await offload.storeAhead(payload);
          return null;
        } catch (err) {
          const wait = Math.min(200 * 2 ** (attempt - 1), 5_000);
          if (Date.now() + wait > deadline) {
            return {
              reason: 'store_unavailable' as const,
              size,
              message: `store_unavailable: ${what} answered ${formatBytes(size)}, and the payload store ${offload.store.location} could not keep it (${attempt} tries over ${Math.round(rec.storeRetryMs / 1000)} s): ${(err as Error).message}`,
            };
          }
          await sleep(wait);
        }
      }
    },
    () => ({ text: `storing ${formatBytes(size)} in ${offload.store.location}` }),
  );
}
