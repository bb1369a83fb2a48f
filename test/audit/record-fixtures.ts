/**
 * Records the histories the value audit tests read (test/audit/values.test.ts), as
 * `temporal workflow show --output json` writes them (historyToJSON), from real runs on
 * the embedded server:
 * - wire-transfer-values.history.json: the wire transfer, approved by update, wire sent;
 * - plan-values.history.json: a plan whose step args come from a dependency's result
 *   (`$ref` and a computed `$expr`), with an approval gate.
 *
 *     node --import tsx test/audit/record-fixtures.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { decideUpdate } from '../../src/workflows/mission/messages.ts';
import { freshBankFile, waitForStatus } from '../mission/harness.ts';
import { awaiting, planEnv, waitForPlan } from '../plans/plan-harness.ts';

const out = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** The plan of the plan fixture: `$ref` and `$expr` args from a dependency, an approval gate. */
export const valuesPlan = {
  steps: [
    { id: 'first', description: 'a value to use', tool: 'echo', args: { value: { amount: 40, to: 'bob' } } },
    {
      id: 'second',
      description: 'uses the first result',
      tool: 'echo',
      args: { value: { to: '$first.got.to', total: { $expr: '(+ 2 (get-in step/first [:got :amount]))' } } },
      dependsOn: ['first'],
      requiresApproval: true,
    },
  ],
};

async function main(): Promise<void> {
  const env = await planEnv();
  try {
    await env.startWorker();
    freshBankFile();
    const mission = await env.start(
      { agent: 'wire-transfer', input: { recipient: 'bob', amount: 5000 } },
      'recorded-wire-values',
    );
    await waitForStatus(mission, (s) => s.status === 'waiting');
    await mission.executeUpdate(decideUpdate, {
      args: [{ key: 'manager_decision_bob_5000', value: 'approved', by: 'ana' }],
    });
    await mission.result();
    writeFileSync(out('wire-transfer-values.history.json'), historyToJSON(await mission.fetchHistory()));

    const plan = await env.startPlan({ id: 'recorded-plan-values', agent: 'lab', approve: true, document: valuesPlan });
    await waitForPlan(plan, awaiting('second'));
    await plan.approveStep('second', { by: 'ana' });
    await plan.result();
    writeFileSync(out('plan-values.history.json'), historyToJSON(await plan.workflow.fetchHistory()));
  } finally {
    await env.shutdown();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
