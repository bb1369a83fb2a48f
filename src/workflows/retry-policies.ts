/**
 * Retry policy of a tool activity by its side-effect class. External effects carry an
 * idempotency key, so a retry after a timeout is safe for services that honour it; they
 * still get fewer attempts than reads, because a service that ignores the key would
 * repeat the effect.
 */
import type { RetryPolicy } from '@temporalio/common';
import { NON_RETRYABLE_TOOL_FAILURES as NON_RETRYABLE, type SideEffectClass } from '../kernel/contract.ts';

export function retryPolicyFor(sideEffect: SideEffectClass): RetryPolicy {
  switch (sideEffect) {
    case 'read_only':
      return {
        maximumAttempts: 10,
        initialInterval: '1 second',
        backoffCoefficient: 2,
        maximumInterval: '1 minute',
        nonRetryableErrorTypes: NON_RETRYABLE,
      };
    case 'local':
    case 'memory':
      return {
        maximumAttempts: 5,
        initialInterval: '1 second',
        backoffCoefficient: 2,
        nonRetryableErrorTypes: NON_RETRYABLE,
      };
    case 'external':
      return {
        maximumAttempts: 3,
        initialInterval: '2 seconds',
        backoffCoefficient: 2,
        maximumInterval: '1 minute',
        nonRetryableErrorTypes: NON_RETRYABLE,
      };
  }
}
