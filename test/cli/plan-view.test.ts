/**
 * The plan review box of the CLI (src/cli/plan/view.ts) for steps without a tool: a compute
 * step shows its expression (one line, control characters written out), a computed
 * question the expression and the steps it reads until it runs, then the text it computed.
 */
import { describe, expect, it } from 'vitest';
import { renderPlan } from '../../src/cli/plan/view.ts';
import type { Step } from '../../src/plans/schema.ts';
import type { PlanStatusView } from '../../src/workflows/plan/contract.ts';

const step = (s: Partial<Step> & Pick<Step, 'id'>): Step => ({
  order: 0,
  description: s.id,
  dependsOn: [],
  critical: true,
  requiresApproval: false,
  status: 'pending',
  ...s,
});

const view = (steps: Step[], status: PlanStatusView['status'] = 'review'): PlanStatusView =>
  ({
    planId: 'p1',
    runId: 'r',
    agent: 'lab',
    status,
    version: 1,
    plan: { id: 'p1', taskId: 't', version: 1, steps },
    approvals: [],
    approvalRecords: [],
    questions: [],
    summary: null,
    error: null,
  }) as unknown as PlanStatusView;

const ask = {
  question: { $expr: '(str "Which of the " (count (:items step/list)) " items?")' },
  schema: { enum: { $expr: '(mapv :id (:items step/list))' } },
};
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('plan view of compute steps and computed questions', () => {
  it('review: compute: EXPR on one line, escaped; a computed question as computed from its steps', () => {
    const text = plain(
      renderPlan(
        view([
          step({ id: 'list', tool: 'make_list', args: { n: 3 } }),
          step({ id: 'ids', compute: '(mapv :id\n  (:items step/list))\u001b[31m', dependsOn: ['list'] }),
          step({ id: 'pick', ask, dependsOn: ['list', 'ids'] }),
          step({ id: 'plain', ask: { question: 'Go on?', schema: { type: 'boolean' } } }),
        ]),
      ),
    );
    expect(text).toContain('compute: (mapv :id (:items step/list))\\u001b[31m');
    expect(text).not.toContain('\u001b[31m');
    expect(text).toContain(
      'ask: computed from list: (str "Which of the " (count (:items step/list)) " items?") (answer: {"enum":{"$expr":"(mapv :id (:items step/list))"}})',
    );
    expect(text).toContain('ask: Go on? (answer: {"type":"boolean"})');
    expect(text).not.toContain('[object Object]');
    expect(text).not.toMatch(/agent (undefined)?\s/);
  });

  it('running: the text and choices the question computed, once the step recorded them', () => {
    const resolved = { question: 'Which of the 3 items?', schema: { enum: ['item-0', 'item-1', 'item-2'] } };
    const text = plain(
      renderPlan(
        view(
          [
            step({
              id: 'ids',
              compute: '(count step/list)',
              dependsOn: ['list'],
              status: 'completed',
              resolved: 3,
              result: { ok: true, value: 3, attempts: 0, duration: 1, timestamp: '' } as Step['result'],
            }),
            step({ id: 'pick', ask, dependsOn: ['list'], status: 'awaiting_answer', resolved }),
          ],
          'running',
        ),
      ),
    );
    expect(text).toContain('ask: Which of the 3 items? (answer: {"enum":["item-0","item-1","item-2"]})');
    expect(text).not.toContain('computed from');
    expect(text).toContain('compute: (count step/list)');
  });
});

describe('plan view for the person a step waits for', () => {
  const read = step({
    id: 'read_config',
    tool: 'read_file',
    args: { path: 'config.json' },
    status: 'completed',
    result: {
      ok: true,
      value: { path: 'config.json', content: '{\n  "version": "1.0.0"\n}\n' },
      attempts: 1,
      duration: 3,
      timestamp: '2026-11-28T10:00:00.000Z',
    },
  });
  const write = step({
    id: 'write_config',
    tool: 'write_file',
    args: { path: 'config.json', content: '{\n  "version": "2.0.0"\n}\n' },
    status: 'awaiting_approval',
    dependsOn: ['read_config'],
  });
  const waiting = (approvers?: string[]) =>
    ({
      ...view([read, write], 'running'),
      approvals: [
        {
          key: 'write_config',
          stepId: 'write_config',
          item: null,
          tool: 'write_file',
          args: write.args,
          description: 'Write config.json',
          since: '2026-11-28T10:00:00.000Z',
          deadline: null,
          ...(approvers ? { approvers } : {}),
        },
      ],
    }) as unknown as PlanStatusView;

  it('says whose approval a running plan waits for, not "running", and statuses in words', () => {
    expect(plain(renderPlan(waiting(['finance'])))).toContain("· waiting for finance's approval ·");
    const text = plain(renderPlan(waiting()));
    expect(text).toContain('· waiting for approval ·');
    expect(text).not.toContain('awaiting_approval');
    expect(text).toMatch(/\n│ +completed → path: config\.json, content: 3 lines \(1 attempt/);
  });

  it('shows a file write as a diff against what the plan read, not as escaped JSON', () => {
    const text = plain(renderPlan(waiting()));
    expect(text).toContain(
      'path: config.json\n      changes:\n        {\n      -   "version": "1.0.0"\n      +   "version": "2.0.0"\n        }',
    );
    expect(text).not.toContain('\\n');
  });
});
