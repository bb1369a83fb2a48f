/**
 * Agent steps end to end: the step's description reaches the child mission (its Mission
 * Log shows it), and a recovery that retries a failed agent step with new input starts
 * a new child with that input. Audited.
 */
import { describe, expect, it } from 'vitest';
import { missionLogQuery } from '../../src/workflows/mission/messages.ts';
import { expectPlanAuditOk, stepOf, usePlanEnv } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
const T = { timeout: 120_000 };

describe('agent steps', () => {
  it(
    'give the step description to the child mission; a retry with new input starts a new child with it',
    T,
    async () => {
      const env = planEnvOf();
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'rec_agent', description: 'add two positive numbers', agent: 'lab-child', input: { a: -1, b: 4 } },
          ],
        },
      });
      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'rec_agent')).toMatchObject({
        status: 'completed',
        input: { a: 1, b: 4 },
        result: { ok: true, value: { sum: 5 } },
      });
      const ledger = await plan.ledger();
      expect(ledger.map((e) => [e.activity, e.status])).toEqual([
        [`${plan.id}--rec_agent-1`, 'failed'],
        [`${plan.id}--rec_agent-2`, 'completed'],
      ]);
      const second = env.client.workflow.getHandle(`${plan.id}--rec_agent-2`);
      const history = await second.fetchHistory();
      const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
      const input = JSON.parse(Buffer.from(started.input!.payloads![0]!.data!).toString());
      expect(input).toMatchObject({ agent: 'lab-child', input: { a: 1, b: 4 } });
      expect(await second.query(missionLogQuery)).toContain(
        `- [done] plan_step: {"plan" "${plan.id}", "step" "rec_agent", "description" "add two positive numbers"}`,
      );
      const report = await expectPlanAuditOk(env, plan.id);
      expect(report.children.map((c) => c.workflowId)).toEqual([`${plan.id}--rec_agent-2`]);
    },
  );
});
