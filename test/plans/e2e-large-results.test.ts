/**
 * Plan steps with large results (issue 38): a read step answering 3 MB and an external step
 * answering 3 MB after it. Both results are kept out of history by the payload store, the
 * external step runs once (the tool's own log), the plan completes, history stays small
 * and the plan audit passes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historySize } from '../../bench/pass-history.ts';
import { largeEffect, largeRead, toolCalls } from '../mission/fixtures/large-agents.ts';
import { awaiting, expectPlanAuditOk, planEnv, waitForPlan } from './plan-harness.ts';

process.env.LARGE_TOOL_LOG = join(mkdtempSync(join(tmpdir(), 'plan-large-')), 'calls.jsonl');

describe('plan steps with large results', () => {
  it(
    'a 3 MB read step and a 3 MB external step: the effect once, history small, the plan audit passes',
    { timeout: 180_000 },
    async () => {
      const env = await planEnv();
      try {
        await env.startWorker([largeEffect, largeRead]);
        const plan = await env.startPlan({
          agent: 'large-effect',
          approve: true,
          document: {
            steps: [
              { id: 'read', description: 'read the dump', tool: 'fetch_dump', args: { bytes: 3 * 1024 * 1024 } },
              {
                id: 'publish',
                description: 'publish the report',
                tool: 'publish_report',
                args: { bytes: 3 * 1024 * 1024 },
                dependsOn: ['read'],
              },
            ],
          },
        });
        // an external step waits for a person
        await waitForPlan(plan, awaiting('publish'));
        await plan.approveStep('publish', { by: 'ana' });
        const summary = await plan.result();
        expect(summary.status).toBe('completed');
        expect(toolCalls().filter((c) => c.tool === 'publish_report')).toHaveLength(1);
        const view = await plan.status();
        const publish = view.plan!.steps.find((s) => s.id === 'publish')!;
        expect(String((publish.result!.value as { body: string }).body).length).toBe(3 * 1024 * 1024);
        const history = await env.client.workflow.getHandle(plan.id).fetchHistory();
        expect(historySize(history.events ?? [])).toBeLessThan(1024 * 1024);
        await expectPlanAuditOk(env, plan.id);
      } finally {
        await env.shutdown();
      }
    },
  );
});
