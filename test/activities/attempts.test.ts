import { describe, expect, it } from 'vitest';
import {
  FAILED_ATTEMPT_MESSAGE_CHARS,
  earlierFailures,
  failedAttempt,
  withFailures,
} from '../../src/activities/attempts.ts';

const at = new Date('2026-11-26T10:00:00.000Z');

describe('failed attempts of a tool activity', () => {
  it('a first attempt has none', () => {
    expect(earlierFailures({ attempt: 1, heartbeatDetails: undefined })).toEqual([]);
  });

  it('reads the list the attempt before left in its heartbeat details', () => {
    const first = failedAttempt(
      1,
      'ToolError',
      'tool charge failed: read ECONNRESET',
      Object.assign(new Error('x'), { code: 'ECONNRESET' }),
      at,
    );
    expect(first).toEqual({
      attempt: 1,
      type: 'ToolError',
      message: 'tool charge failed: read ECONNRESET',
      code: 'ECONNRESET',
      at: '2026-11-26T10:00:00.000Z',
    });
    const details = withFailures({ text: 'tool charge' }, [first]);
    expect(details).toEqual({ text: 'tool charge', failedAttempts: [first] });
    expect(earlierFailures({ attempt: 2, heartbeatDetails: details })).toEqual([first]);
  });

  it('an attempt that left no record (its worker died) is listed as such, in its place', () => {
    const second = failedAttempt(2, 'ToolError', 'HTTP 503', undefined, at);
    const out = earlierFailures({ attempt: 4, heartbeatDetails: { failedAttempts: [second] } });
    expect(out.map((f) => [f.attempt, f.type])).toEqual([
      [1, 'NoRecord'],
      [2, 'ToolError'],
      [3, 'NoRecord'],
    ]);
    expect(out[0]!.at).toBeUndefined();
  });

  it('ignores details of another shape and records only the first line, cut short', () => {
    expect(earlierFailures({ attempt: 2, heartbeatDetails: { progress: 40 } }).map((f) => f.type)).toEqual([
      'NoRecord',
    ]);
    const long = failedAttempt(1, 'ToolError', `${'x'.repeat(1000)}\n    at stack frame`, 'not an error', at);
    expect(long.message).toHaveLength(FAILED_ATTEMPT_MESSAGE_CHARS);
    expect(long.code).toBeUndefined();
  });

  it('leaves heartbeat details alone when nothing failed', () => {
    expect(withFailures({ text: 'a' }, [])).toEqual({ text: 'a' });
    expect(withFailures(undefined, [])).toBeUndefined();
    expect(withFailures(7, [failedAttempt(1, 'T', 'm', undefined, at)])).toEqual({
      details: 7,
      failedAttempts: [expect.objectContaining({ attempt: 1 })],
    });
  });
});
