/**
 * Raising one of our failures: an `ApplicationFailure` whose type is on the closed list
 * in `contract.ts`, so a typo in a type name is a compile error rather than a retry
 * policy that silently stops matching. Works in workflow and activity code alike.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { FailureType } from './contract.ts';

export interface FailureOptions {
  /** retried by the activity's retry policy (default: not retried) */
  retryable?: boolean;
  /** payloads the caller reads back (attempt numbers, problems, a summary) */
  details?: unknown[];
  /** overrides the retry policy's next interval (a provider's Retry-After), in ms */
  nextRetryDelayMs?: number;
}

export function failure(type: FailureType, message: string, opts: FailureOptions = {}): ApplicationFailure {
  const delay = opts.nextRetryDelayMs ? { nextRetryDelay: opts.nextRetryDelayMs } : {};
  return ApplicationFailure.create({ type, message, nonRetryable: !opts.retryable, details: opts.details, ...delay });
}

/** Retry options' `nonRetryableErrorTypes`, checked against the list. */
export function nonRetryable(...types: FailureType[]): string[] {
  return types;
}
