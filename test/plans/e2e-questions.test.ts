/**
 * Question steps end to end on the embedded server: a step `ask`s a person, waits in
 * `awaiting_answer`, a bad answer is refused with the schema's reasons (the step keeps
 * waiting), a good one (by the client's update, or by the console's form over HTTP) is
 * the step's result, read by its dependents as `step/pick` and `$pick`. Each plan ends
 * with its audit, which rebuilds the answers from the `answerStep` updates in history.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { NavigatorClient } from '../../src/client/index.ts';
import { PlanRejected } from '../../src/client/plan/client.ts';
import { createConsoleApp } from '../../src/console/server.ts';
import { expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
const T = { timeout: 120_000 };

const deployPlan = {
  steps: [
    { id: 'build', description: 'build', tool: 'echo', args: { value: 'built' } },
    {
      id: 'pick',
      description: 'where to deploy',
      ask: {
        question: 'Deploy to which environment, how many replicas?',
        schema: {
          type: 'object',
          properties: { env: { enum: ['staging', 'prod'] }, replicas: { type: 'integer', minimum: 1 } },
          required: ['env'],
        },
      },
      dependsOn: ['build'],
    },
    {
      id: 'deploy',
      description: 'deploy',
      tool: 'echo',
      args: { value: { $expr: '(str "deploy to " (:env step/pick))' }, label: '$pick.env' },
      dependsOn: ['pick'],
    },
    {
      id: 'announce',
      description: 'only for prod',
      tool: 'echo',
      args: { value: 'prod is live' },
      dependsOn: ['pick'],
      when: '(= (:env step/pick) "prod")',
    },
  ],
};

const waitingFor = (stepId: string) => (v: { questions: Array<{ stepId: string }> }) =>
  v.questions.some((q) => q.stepId === stepId);

describe('question steps', () => {
  it(
    'waits for an answer; a bad one is refused with the reasons and the step keeps waiting; the answer by update is step/pick',
    T,
    async () => {
      const env = planEnvOf();
      const plan = await env.startPlan({ agent: 'lab', approve: true, document: deployPlan });
      const waiting = await waitForPlan(plan, waitingFor('pick'));
      expect(stepOf(waiting, 'pick').status).toBe('awaiting_answer');
      expect(waiting.questions).toEqual([
        expect.objectContaining({
          stepId: 'pick',
          question: deployPlan.steps[1]!.ask!.question,
          schema: deployPlan.steps[1]!.ask!.schema,
        }),
      ]);

      const bad = await plan.answer('pick', { env: 'dev', replicas: 0 }).catch((e) => e);
      expect(bad).toBeInstanceOf(PlanRejected);
      expect((bad as PlanRejected).message).toBe(
        'step pick: the answer {"env":"dev","replicas":0} does not match the question\'s schema: answer.env: Invalid option: expected one of "staging"|"prod"; answer.replicas: Too small: expected number to be >=1',
      );
      const notAQuestion = await plan.answer('build', 'x').catch((e) => e);
      expect((notAQuestion as PlanRejected).message).toBe('step build is not a question (it runs tool echo)');
      expect(stepOf(await plan.status(), 'pick').status).toBe('awaiting_answer');

      const ack = await plan.answer('pick', { env: 'staging', replicas: 2 }, { by: 'ana' });
      expect(ack).toMatchObject({ stepId: 'pick', answer: { env: 'staging', replicas: 2 } });
      const again = await plan.answer('pick', { env: 'prod' }).catch((e) => e);
      expect((again as PlanRejected).message).toMatch(
        /^step pick is already answered|^step pick is completed, not awaiting an answer$/,
      );

      const summary = await plan.result();
      expect(summary.status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'pick')).toMatchObject({
        status: 'completed',
        answeredBy: 'ana',
        result: { ok: true, value: { env: 'staging', replicas: 2 } },
      });
      expect(stepOf(view, 'deploy').result!.value).toEqual({ got: 'deploy to staging', label: 'staging' });
      expect(stepOf(view, 'announce')).toMatchObject({ status: 'skipped', reason: 'condition false' });
      const report = await expectPlanAuditOk(env, plan.id);
      expect(report.steps.find((s) => s.stepId === 'pick')!.history).toMatchObject({
        outcome: 'completed',
        value: { env: 'staging', replicas: 2 },
      });
    },
  );

  it(
    'the console shows the question with a form; a bad answer shows the reasons, a good one is recorded',
    T,
    async () => {
      const env = planEnvOf();
      const navigator = new NavigatorClient({ client: env.client, taskQueue: env.taskQueue });
      const app = createConsoleApp({ navigator, user: 'ana', pollMs: 50, noAuth: true });
      const origin = 'http://localhost';
      const plan = await env.startPlan({ agent: 'lab', approve: true, document: deployPlan });
      await waitForPlan(plan, waitingFor('pick'));
      const page = await (await app.request(`${origin}/plans/${plan.id}`)).text();
      expect(page).toContain('Deploy to which environment, how many replicas?');
      expect(page).toContain(`/plans/${plan.id}/steps/pick/answer`);
      const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(page)![1]!;
      const post = (value: string) =>
        app.request(`${origin}/plans/${plan.id}/steps/pick/answer`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
          body: new URLSearchParams({ _csrf: csrf, value }).toString(),
        });
      const notJson = await post('{env: prod');
      expect(notJson.status).toBe(400);
      expect(await notJson.text()).toContain('the answer to pick is not JSON');
      const refused = await post('{"replicas": 3}');
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('answer.env: Invalid option');
      expect((await post('{"env": "prod"}')).status).toBe(303);

      expect((await plan.result()).status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'pick')).toMatchObject({ answeredBy: 'ana', result: { value: { env: 'prod' } } });
      expect(stepOf(view, 'announce').status).toBe('completed');
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('a question whose when is false is skipped without asking', T, async () => {
    const env = planEnvOf();
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      document: {
        steps: [
          { id: 'check', description: 'is it risky?', tool: 'echo', args: { value: { risky: false } } },
          {
            id: 'confirm',
            description: 'only for risky changes',
            ask: { question: 'Go ahead?', schema: { type: 'boolean' } },
            dependsOn: ['check'],
            when: '(:risky (:got step/check))',
          },
          {
            id: 'go',
            description: 'after the question',
            tool: 'echo',
            args: { value: 'went' },
            dependsOn: ['confirm'],
          },
        ],
      },
    });
    expect((await plan.result()).status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'confirm')).toMatchObject({
      status: 'skipped',
      skippedBy: 'condition',
      reason: 'condition false',
    });
    expect(stepOf(view, 'confirm').resolved).toBeUndefined();
    expect(stepOf(view, 'go').status).toBe('completed');
    await expectPlanAuditOk(env, plan.id);
  });

  it('a cancelled plan skips the waiting question', T, async () => {
    const env = planEnvOf();
    const plan = await env.startPlan({ agent: 'lab', approve: true, document: deployPlan });
    await waitForPlan(plan, waitingFor('pick'));
    await plan.cancel('not today');
    const err = await plan.result().catch((e) => e);
    expect((err as WorkflowFailedError).cause?.message).toBe('plan cancelled: not today');
    const view = await plan.status();
    expect(stepOf(view, 'pick')).toMatchObject({ status: 'skipped', reason: 'plan cancelled: not today' });
    expect(view.questions).toEqual([]);
    await expectPlanAuditOk(env, plan.id);
  });

  it(
    'a question computes its text and its choices from the steps it depends on; the answer is checked against the computed schema; audited',
    T,
    async () => {
      const env = planEnvOf();
      const plan = await env.startPlan({
        agent: 'lab',
        approve: true,
        document: {
          steps: [
            { id: 'list', description: 'items', tool: 'make_list', args: { n: 3 } },
            {
              id: 'pick',
              description: 'which item',
              ask: {
                question: { $expr: '(str "Which of the " (count (:items step/list)) " items?")' },
                schema: { enum: { $expr: '(mapv :id (:items step/list))' } },
              },
              dependsOn: ['list'],
            },
            { id: 'use', description: 'uses the answer', tool: 'echo', args: { value: '$pick' }, dependsOn: ['pick'] },
          ],
        },
      });
      const waiting = await waitForPlan(plan, waitingFor('pick'));
      expect(waiting.questions).toEqual([
        expect.objectContaining({
          stepId: 'pick',
          question: 'Which of the 3 items?',
          schema: { enum: ['item-0', 'item-1', 'item-2'] },
        }),
      ]);
      const bad = await plan.answer('pick', 'item-7').catch((e) => e);
      expect((bad as PlanRejected).message).toMatch(
        /^step pick: the answer "item-7" does not match the question's schema: answer: Invalid option/,
      );
      await plan.answer('pick', 'item-1', { by: 'ana' });
      expect((await plan.result()).status).toBe('completed');
      const view = await plan.status();
      expect(stepOf(view, 'pick').resolved).toEqual({
        question: 'Which of the 3 items?',
        schema: { enum: ['item-0', 'item-1', 'item-2'] },
      });
      expect(stepOf(view, 'use').result!.value).toEqual({ got: 'item-1' });
      await expectPlanAuditOk(env, plan.id);
    },
  );

  it('a computed schema that is no JSON Schema fails the question step with its path', T, async () => {
    const env = planEnvOf();
    const plan = await env.startPlan({
      agent: 'lab',
      approve: true,
      options: { onFailure: 'continue' },
      document: {
        steps: [
          { id: 'list', description: 'items', tool: 'make_list', args: { n: 1 } },
          {
            id: 'pick',
            description: 'which',
            ask: { question: 'Which?', schema: { $expr: '(:items step/list)' } },
            dependsOn: ['list'],
            critical: false,
          },
        ],
      },
    });
    await plan.result();
    expect(stepOf(await plan.status(), 'pick')).toMatchObject({
      status: 'failed',
      result: { error: expect.stringMatching(/^step pick ask\.schema: the schema must be a JSON Schema object/) },
    });
  });
});
