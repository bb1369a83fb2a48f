/**
 * Retry policies as the real server applies them to activities and workflows:
 * defaults filled, exponential backoff capped at the maximum interval, and the
 * RetryState that explains why no further attempt is made.
 */
import { duration, durationMs, type Msg } from './proto.ts';

export function fillRetryPolicy(policy: Msg | undefined): Msg {
  const initial = durationMs(policy?.initialInterval) || 1000;
  return {
    initialInterval: duration(initial),
    backoffCoefficient: policy?.backoffCoefficient || 2,
    maximumInterval: duration(durationMs(policy?.maximumInterval) || 100 * initial),
    maximumAttempts: policy?.maximumAttempts ?? 0,
    nonRetryableErrorTypes: policy?.nonRetryableErrorTypes ?? [],
  };
}

export interface RetryQuestion {
  /** A filled policy (see fillRetryPolicy). */
  policy: Msg;
  /** The attempt that just failed, from 1. */
  attempt: number;
  failure: Msg;
  /** No attempt may start at or after this time (schedule-to-close, execution timeout). */
  deadline?: number;
  now?: number;
}

/** Either the delay before the next attempt or the RetryState saying why there is none. */
export function nextRetry(q: RetryQuestion): { delayMs: number } | { state: string } {
  const { policy, attempt, failure } = q;
  const info = failure.applicationFailureInfo;
  const types: string[] = policy.nonRetryableErrorTypes ?? [];
  if (!failure.timeoutFailureInfo && (info?.nonRetryable || (info?.type && types.includes(info.type)))) {
    return { state: 'RETRY_STATE_NON_RETRYABLE_FAILURE' };
  }
  const maxAttempts = Number(policy.maximumAttempts ?? 0);
  if (maxAttempts > 0 && attempt >= maxAttempts) return { state: 'RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED' };
  const delayMs = Math.min(
    durationMs(policy.initialInterval) * Math.pow(policy.backoffCoefficient, attempt - 1),
    durationMs(policy.maximumInterval),
  );
  if (q.deadline && (q.now ?? Date.now()) + delayMs >= q.deadline) return { state: 'RETRY_STATE_TIMEOUT' };
  return { delayMs };
}
