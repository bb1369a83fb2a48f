/**
 * Why a tool activity was retried. Temporal hands an attempt the heartbeat details the
 * attempt before it left, and keeps only the last failure itself; so each attempt that
 * fails heartbeats the list of failed attempts so far (its own last) before it throws, and
 * the attempt that finally answers returns that list with its result.
 */
import type { Context } from '@temporalio/activity';
import { z } from 'zod';
import { FailedAttempt } from '../kernel/schemas.ts';

/** Longest message kept for one failed attempt. */
export const FAILED_ATTEMPT_MESSAGE_CHARS = 300;

/** The heartbeat details an attempt leaves for the next: what it did, and the failures so far. */
const Carried = z.object({ failedAttempts: z.array(FailedAttempt) });

/**
 * The failures of the attempts before this one, from the heartbeat details the last of them
 * left; an attempt that left none (its worker died, it timed out, its last heartbeat was
 * lost) is listed as `NoRecord`.
 */
export function earlierFailures(info: Pick<Context['info'], 'attempt' | 'heartbeatDetails'>): FailedAttempt[] {
  const carried = Carried.safeParse(info.heartbeatDetails);
  const known = carried.success ? carried.data.failedAttempts.filter((f) => f.attempt < info.attempt) : [];
  const out: FailedAttempt[] = [];
  for (let attempt = 1; attempt < info.attempt; attempt++) {
    out.push(
      known.find((f) => f.attempt === attempt) ?? {
        attempt,
        type: 'NoRecord',
        message: 'no error recorded: the worker stopped, the attempt timed out, or its last heartbeat was lost',
      },
    );
  }
  return out;
}

/** This attempt's failure, short: its type, the first line of its message, the cause's code. */
export function failedAttempt(
  attempt: number,
  type: string,
  message: string,
  cause?: unknown,
  now = new Date(),
): FailedAttempt {
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  return {
    attempt,
    type,
    message: message.split('\n')[0]!.slice(0, FAILED_ATTEMPT_MESSAGE_CHARS),
    ...(typeof code === 'string' ? { code } : {}),
    at: now.toISOString(),
  };
}

/** Heartbeat details that carry the failures so far alongside what the activity does. */
export function withFailures(details: unknown, failures: readonly FailedAttempt[]): unknown {
  if (failures.length === 0) return details;
  const base =
    details !== null && typeof details === 'object' && !Array.isArray(details)
      ? details
      : details === undefined
        ? {}
        : { details };
  return { ...base, failedAttempts: failures };
}
