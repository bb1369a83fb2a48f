/**
 * The model evaluation harness, offline: the recorded answers do all eighteen missions
 * right (checked from effects and results, audited), the checkers catch wrong answers,
 * and the report's figures are computed correctly.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cases } from '../../eval/cases/index.ts';
import { formatReport, summarize } from '../../eval/report.ts';
import type { RunResult } from '../../eval/runner.ts';
import { recordingsDir, runSuite } from '../../eval/run.ts';

describe('the evaluation suite on recorded answers', () => {
  it('has at least twelve missions covering the areas the issue names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it('does every mission right, each audited against its history', async () => {
    const results = await runSuite();
    const wrong = results.filter((r) => !r.correct).map((r) => `${r.case}: ${r.why}`);
    expect(wrong).toEqual([]);
    expect(results.every((r) => r.audit)).toBe(true);
    const byCase = new Map(results.map((r) => [r.case, r]));
    // decisions take a second pass; the refused name costs a second model call
    expect(byCase.get('refund-approved')!.passes).toBe(2);
    expect(byCase.get('rejected-name')!.modelCalls).toBe(2);
    expect(summarize(results).successRate).toBe(1);
  }, 240_000);

  it.each([
    ['paid-orders-total', /result: expected/],
    ['three-emails', /emails sent: expected|ran twice/],
    ['refund-rejected', /refunds: expected 0, got 1/],
  ])(
    'catches a wrong answer: %s',
    async (name, why) => {
      const [result] = await runSuite({
        only: [name],
        recordingFor: (c) => join(recordingsDir, 'wrong', `${c.name}.json`),
      });
      expect(result!.correct).toBe(false);
      expect(result!.why).toMatch(why);
    },
    120_000,
  );

  it('calls per mission on the kind issue 29 measured: fewer with shapes remembered and the waiting program run again', async () => {
    const only = [
      'invoice-reminders',
      'onboarding-approval',
      'onboarding-declined',
      'onboarding-no-admin',
      'price-change-refused',
      'ledger-reconciliation',
    ];
    const calls = (rs: RunResult[], run: number) => rs.filter((r) => r.run === run).map((r) => [r.case, r.modelCalls]);
    const before = await runSuite({ only, withoutMemory: true });
    expect(before.every((r) => r.correct)).toBe(true);
    // a print turn for each read shown as -> any, a pass per decision, a turn to read the refusal
    expect(calls(before, 1).map(([, n]) => n)).toEqual([2, 3, 3, 2, 3, 2]);
    const after = await runSuite({ only, runs: 2 });
    expect(after.every((r) => r.correct && r.audit)).toBe(true);
    // run 1: the pass after a decision runs the program that waited; the second and third
    // onboarding (one agent) already show the HR record's shape
    expect(calls(after, 1)).toEqual([
      ['invoice-reminders', 2],
      ['onboarding-approval', 2],
      ['onboarding-declined', 1],
      ['onboarding-no-admin', 1],
      ['price-change-refused', 3],
      ['ledger-reconciliation', 2],
    ]);
    // run 2: every shape is shown on the first turn; the refusal still takes a turn to read
    expect(calls(after, 2).map(([, n]) => n)).toEqual([1, 1, 1, 1, 2, 1]);
    expect(summarize(before).meanModelCalls).toBe(2.5);
    expect(summarize(after).byRun).toEqual([
      { run: 1, missions: 6, meanModelCalls: 11 / 6 },
      { run: 2, missions: 6, meanModelCalls: 7 / 6 },
    ]);
  }, 240_000);

  it('refuses an unknown case by name', async () => {
    await expect(runSuite({ only: ['no-such-case'] })).rejects.toThrow(
      /unknown case\(s\): no-such-case; cases: paid-orders-total/,
    );
  });
});

describe('the report', () => {
  const r = (c: string, correct: boolean, modelCalls: number, passes: number): RunResult => ({
    case: c,
    run: 1,
    correct,
    why: correct ? null : 'result: expected 1, got 2',
    passes,
    modelCalls,
    tokens: 100,
    inputTokens: 90,
    outputTokens: 10,
    durationMs: 1500,
    audit: true,
  });

  it('computes the success rate and the means per mission', () => {
    const s = summarize([r('a', true, 1, 1), r('b', false, 2, 2), r('c', true, 3, 1), r('d', true, 2, 2)]);
    expect(s).toEqual({
      runs: 4,
      correct: 3,
      successRate: 0.75,
      meanModelCalls: 2,
      meanPasses: 1.5,
      tokens: 400,
      inputTokens: 360,
      outputTokens: 40,
    });
    expect(summarize([])).toEqual({
      runs: 0,
      correct: 0,
      successRate: 0,
      meanModelCalls: 0,
      meanPasses: 0,
      tokens: 0,
      inputTokens: 0,
      outputTokens: 0,
    });
  });

  it('gives calls per mission by run when there are several runs', () => {
    const two = [
      r('a', true, 3, 1),
      r('b', true, 1, 1),
      { ...r('a', true, 1, 1), run: 2 },
      { ...r('b', true, 1, 1), run: 2 },
    ];
    expect(summarize(two).byRun).toEqual([
      { run: 1, missions: 2, meanModelCalls: 2 },
      { run: 2, missions: 2, meanModelCalls: 1 },
    ]);
    expect(formatReport('recorded', two)).toContain('model calls per mission by run: run 1 2.00, run 2 1.00');
  });

  it('prints one row per run and the summary line', () => {
    const text = formatReport('openai:test', [r('a', true, 1, 1), r('b', false, 2, 2)]);
    expect(text).toContain('model: openai:test');
    expect(text).toMatch(/^b\s+1\s+NO\s+2\s+2\s+90\s+10\s+0\s+1\.5\s+result: expected 1, got 2$/m);
    expect(text).toContain(
      '1/2 correct (50%), mean model calls per mission 1.50, mean passes 1.50, 180 input and 20 output tokens',
    );
  });
});
