/**
 * Approval cards, the same in the inbox and on a mission's or plan's page: what waits,
 * what Approve and Reject do in words, the values with their units (a file edit as a
 * diff), the deadline, a link to the program that asked for it (the pass view), and the buttons. Approve asks for
 * confirmation first when what follows cannot be undone.
 */
import type { Step } from '../plans/schema.ts';
import { blockedAfterWarning } from '../plans/scheduler.ts';
import type { DecisionContract, Json, Pending } from '../workflows/mission/contract.ts';
import type { PendingStepApproval, ToolClass } from '../workflows/plan/contract.ts';
import { decisionEffects, effectsBox, fileEdit, stepEffects, valuesList, type Effects } from './explain.ts';
import { type Fragment, html } from './html.ts';
import { type ConsoleContext, atDeadline, decisionForm } from './mission/pages.ts';
import { stepAtDeadline } from './plan/pages.ts';
import { when } from './time.ts';
import { valueHash } from '../history/hash.ts';
import { inlineMarkdown } from './markdown.ts';
import { decisionLink } from './mission/pass-view.ts';
import { htmlId } from './effect-cards.ts';
import { mayDecideNow, othersDecide } from './roles.ts';

/**
 * The question a browser asks before Approve is sent, when what it runs asks for one (its
 * tool's class, see asksConfirmation): why, in the class's words, then what Approve does.
 */
export const confirmText = (effects: Effects): string | undefined =>
  effects.irreversible
    ? `Approve? ${effects.why ? `${effects.why}: it cannot be taken back from here.` : 'This cannot be undone.'}\n\n${effects.approve.join('\n')}`
    : undefined;

export interface WaitingDecision {
  missionId: string;
  agent: string;
  input: Json;
  pending: Pending;
  contract: DecisionContract | undefined;
}

/** A mission waiting for a decision. */
export function decisionCard(ctx: ConsoleContext, d: WaitingDecision, opts: { heading?: boolean } = {}): Fragment {
  if (!mayDecideNow(d.contract?.approvers))
    return othersDecide(html`Decision <code>${d.pending.key}</code>`, d.contract!.approvers!);
  const entry = ctx.agents?.get(d.agent);
  const effects = decisionEffects(entry, d.contract);
  const url = `/missions/${encodeURIComponent(d.missionId)}`;
  return html`<div class="card approval decision" id="${htmlId('decide', d.missionId)}">
    ${opts.heading !== false ? html`<h3>${inlineMarkdown(d.contract?.description ?? `Decision ${d.pending.key}`)}</h3>` : ''}
    <p class="asked"><span class="status waiting">waiting for you</span> · mission <a href="${url}">${d.missionId}</a> (${d.agent}) asks since ${when(d.pending.since)}
      · <a href="${decisionLink(d.missionId, d.pending.key)}">the program that asked for it</a></p>
    ${valuesList(entry?.agent.input, d.input)}
    ${effectsBox(effects)}
    <p class="deadline">${d.pending.deadline ? html`Decide ${when(d.pending.deadline)}; then ${atDeadline(d.pending.onTimeout, d.contract)}.` : 'No deadline.'} <small>Key <code>${d.pending.key}</code>.</small></p>
    ${decisionForm(ctx, `${url}/decide`, d.pending, d.contract, confirmText(effects))}
  </div>`;
}

/**
 * The hash of the args a card shows, sent with its verdict: the verdict is refused if the
 * effect or step waits with other args by the time of the click (the same task asked again
 * after a deadline, a step retried with new args), so a person approves only what they saw.
 */
const argsHashField = (args: Json): Fragment =>
  html`<input type="hidden" name="argsHash" value="${valueHash(args)}" />`;

/** The args hash a verdict form carried, if any (see {@link argsHashField}). */
export function shownArgsHash(form: Record<string, unknown>): { argsHash?: string } {
  return typeof form.argsHash === 'string' && form.argsHash !== '' ? { argsHash: form.argsHash } : {};
}

/** A plan step waiting for approval; `steps` are the plan's (for the diff and the dependents). */
export function stepApprovalCard(
  ctx: ConsoleContext,
  planId: string,
  agent: string,
  a: PendingStepApproval,
  steps: readonly Step[],
  classes?: Record<string, ToolClass>,
): Fragment {
  if (!mayDecideNow(a.approvers))
    return othersDecide(
      html`Step <code>${a.key}</code>${a.tool ? html` <small>(${a.tool})</small>` : ''} of plan ${planId}`,
      a.approvers!,
    );
  const entry = ctx.agents?.get(agent);
  const step = steps.find((s) => s.id === a.stepId) ?? {
    id: a.stepId,
    tool: a.tool ?? undefined,
    agent: undefined,
    dependsOn: [],
  };
  const effects = stepEffects(entry, step, steps, a.tool ? classes?.[a.tool] : undefined);
  const tool = a.tool ? entry?.agent.tools.find((t) => t.name === a.tool) : undefined;
  const url = `/plans/${encodeURIComponent(planId)}`;
  const action = (what: string) => `${url}/steps/${encodeURIComponent(a.stepId)}/${what}`;
  const confirm = confirmText(effects);
  // each item of a for-each step waits for its own approval: the forms name it
  const item = a.item === null ? '' : html`<input type="hidden" name="item" value="${String(a.item)}" />`;
  return html`<div class="card approval" id="approve-${a.key}">
    <h3>${inlineMarkdown(a.description)}${a.item === null ? '' : html` <small>(item ${String(a.item)})</small>`}</h3>
    <p class="asked"><span class="status waiting">waiting for you</span> · step <a href="${url}#step-${encodeURIComponent(a.stepId)}"><code>${a.stepId}</code></a>${a.item === null ? '' : html`, item ${String(a.item)},`} of plan <a href="${url}">${planId}</a> (${agent}) since ${when(a.since)}</p>
    ${fileEdit(a.args, steps) ?? valuesList(tool?.input, a.args)}
    ${effectsBox(effects, 'Deny')}
    ${blockedWarning(steps, a.stepId)}
    ${a.deadline ? html`<p class="deadline">Decide ${when(a.deadline)}${a.onTimeout ? html`; then ${stepAtDeadline(a.onTimeout)}` : ''}.</p>` : ''}
    <form method="post" action="${action('approve')}" class="inline"><input type="hidden" name="_csrf" value="${ctx.csrf}" />${item}${argsHashField(a.args)}<input name="note" placeholder="note (optional)" aria-label="note" /> <button class="primary"${confirm ? html` data-confirm="${confirm}"` : ''}>Approve</button></form>
    <form method="post" action="${action('deny')}" class="inline"><input type="hidden" name="_csrf" value="${ctx.csrf}" />${item}<input name="reason" placeholder="why (optional)" aria-label="why" /> <button class="danger">Deny</button></form>
    <details class="engineer-details"><summary>Details for engineers</summary>
      <dl class="values"><dt>tool</dt><dd><code>${a.tool ?? 'none'}</code>${tool ? ` (${tool.sideEffect}${tool.destructive ? ', destructive' : ''})` : ''}</dd>
        <dt>step</dt><dd><code>${a.stepId}</code>${a.item === null ? '' : ` item ${String(a.item)}`}</dd><dt>key</dt><dd><code>${a.key}</code></dd><dt>args hash</dt><dd><code>${valueHash(a.args)}</code></dd></dl>
    </details>
  </div>`;
}

/** Said before Approve when what the step leads to can no longer run (another of its dependencies failed or was denied). */
function blockedWarning(steps: readonly Step[], stepId: string): Fragment | '' {
  const warning = blockedAfterWarning({ steps }, stepId);
  return warning ? html`<p class="warning" role="note"><strong>Warning:</strong> ${warning}</p>` : '';
}
