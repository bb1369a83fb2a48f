/**
 * What `navigator status` and `ledger` say of an effect whose result could not be kept
 * (issue 38) and of a large read the ledger keeps only the start of.
 */
import { describe, expect, it } from 'vitest';
import { ledgerLine, ledgerResultText, notKeptLines } from '../../src/cli/mission/view.ts';
import type { LedgerEntry } from '../../src/workflows/mission/contract.ts';

const base: LedgerEntry = {
  seq: 1,
  pass: 1,
  taskId: 'publish',
  tool: 'publish_report',
  sideEffect: 'external',
  idempotencyKey: 'k',
  status: 'completed',
  attempts: 1,
  activity: 'tool-1-publish_report',
};
const lost: LedgerEntry = {
  ...base,
  result: { result_unavailable: 'result_too_large' },
  unavailable: {
    reason: 'result_too_large',
    size: 70_000_000,
    message:
      'result_too_large: tool publish_report returned 66.8 MB, over the 64.0 MB limit for one result (NAVIGATOR_MAX_RESULT_BYTES)',
  },
};

describe('results not kept', () => {
  it('status lists each effect that ran but whose result was not kept, and says it ran once', () => {
    expect(notKeptLines([base])).toEqual([]);
    expect(notKeptLines([base, { ...lost, seq: 2 }])).toEqual([
      'Results not kept (each call ran once and will not run again):',
      '  #2 publish_report (task publish): result_too_large: tool publish_report returned 66.8 MB, over the 64.0 MB limit for one result (NAVIGATOR_MAX_RESULT_BYTES)',
    ]);
  });

  it('the ledger line says done with the result unavailable, and a large read by its start and size', () => {
    expect(ledgerLine(lost)).toContain(
      '→ done, result unavailable (result_too_large): result_too_large: tool publish_report returned 66.8 MB',
    );
    const read: LedgerEntry = {
      ...base,
      sideEffect: 'read_only',
      resultChars: 1_048_600,
      resultPreview: '{"text":"aaaa',
    };
    expect(ledgerResultText(read)).toBe(
      '{"text":"aaaa… (1,048,600 characters in all, kept in the pass\'s result in history)',
    );
    expect(ledgerResultText({ ...base, result: { id: 7 } })).toBe('{"id":7}');
  });
});
