/**
 * The audit checks who decided (issue 39): a recorded verdict whose role is not among the
 * approvers that applied (the agent description in history for a mission decision, the
 * plan's catalog for a step) is a problem naming its event. Recorded histories (no server)
 * are tampered with: the approvers written into the description or catalog, and the role
 * of the verdict changed or left out, as a worker without the check or an edit would leave them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { auditChain } from '../../src/audit/mission/audit.ts';
import { auditPlanChain } from '../../src/audit/plan/audit.ts';
import { historiesFromJson } from '../../src/history/fetch.ts';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
type Json = Record<string, any>;

const decode = (p: Json) => JSON.parse(Buffer.from(p.data as string, 'base64').toString('utf8'));
const encode = (p: Json, value: unknown) => void (p.data = Buffer.from(JSON.stringify(value)).toString('base64'));

/** The result payload of the first completed activity of `type`. */
function resultOf(h: { events: Json[] }, type: string): Json {
  const scheduled = h.events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)!;
  const done = h.events.find((e) => e.activityTaskCompletedEventAttributes?.scheduledEventId === scheduled.eventId)!;
  return done.activityTaskCompletedEventAttributes.result.payloads[0];
}
/** The accepted update `name`: its event and its argument's payload. */
function updateOf(h: { events: Json[] }, name: string): { event: Json; arg: Json } {
  const event = h.events.find(
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === name,
  )!;
  return { event, arg: event.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.args.payloads[0] };
}

describe('a mission decision given without a role its approvers allow', () => {
  const KEY = 'manager_decision_bob_5000';
  const tampered = (role: string | null) => {
    const h = JSON.parse(fixture('wire-transfer.history.json')) as { events: Json[] };
    const described = resultOf(h, 'describeAgent');
    const agent = decode(described);
    agent.decisions[0].approvers = ['finance'];
    encode(described, agent);
    const decide = updateOf(h, 'decide');
    const verdict = decode(decide.arg);
    if (role) encode(decide.arg, { ...verdict, role });
    return { h, eventId: Number(decide.event.eventId) };
  };
  const audit = (h: unknown) => auditChain(historiesFromJson(JSON.stringify(h), 'test'), null, { skipReplay: true });

  it('names the event, who and the role, and what only finance may decide', async () => {
    const { h, eventId } = tampered('ops');
    const report = await audit(h);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^event ${eventId} \\(run .+\\), decide update: decision ${KEY} was decided by ana as ops; only finance may decide it$`,
        ),
      ),
    ]);
  });

  it('a verdict with no role is one too; with finance the audit passes', async () => {
    const none = await audit(tampered(null).h);
    expect(none.problems).toEqual([
      expect.stringMatching(
        /decide update: decision manager_decision_bob_5000 was decided by ana with no role; only finance may decide it/,
      ),
    ]);
    const finance = await audit(tampered('finance').h);
    expect(finance.problems).toEqual([]);
  });
});

describe('a plan step approved without a role its tool allows', () => {
  const tampered = (role: string | null) => {
    const h = JSON.parse(fixture('plan-values.history.json')) as { events: Json[] };
    const approve = updateOf(h, 'approveStep');
    const verdict = decode(approve.arg) as { stepId: string };
    // the step's tool, from the plan history holds
    const plan = decode(resultOf(h, 'preparePlan')).plan as { steps: Array<{ id: string; tool?: string }> };
    const tool = plan.steps.find((s) => s.id === verdict.stepId)!.tool!;
    const described = resultOf(h, 'describePlanAgent');
    const catalog = decode(described);
    catalog.tools[tool].approvers = ['finance', 'treasury'];
    encode(described, catalog);
    if (role) encode(approve.arg, { ...verdict, role });
    return { h, eventId: Number(approve.event.eventId), stepId: verdict.stepId, tool };
  };
  const audit = (h: unknown) =>
    auditPlanChain(historiesFromJson(JSON.stringify(h), 'test'), null, { skipReplay: true });

  it('names the event, the step and its tool, and who may decide it', async () => {
    const { h, eventId, stepId, tool } = tampered('ops');
    const report = await audit(h);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(
      `event ${eventId} (run ${historiesFromJson(JSON.stringify(h), 'test')[0]!.runId}), approveStep update: step ${stepId} (${tool}) was decided by ana as ops; only finance or treasury may decide it`,
    );
  });

  it('with an allowed role it passes; the untampered history too', async () => {
    expect((await audit(tampered('treasury').h)).problems).toEqual([]);
    expect((await audit(JSON.parse(fixture('plan-values.history.json')))).problems).toEqual([]);
  });
});
