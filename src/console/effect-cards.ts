/**
 * A mission's effects waiting for a person, as one card written for the approver: each call
 * under its tool's own description with its args and their field descriptions (a vendor's
 * name, an amount with its currency), the mission's input and what it already did, the
 * total of the money asked for per currency, and Approve all / Approve or Deny each. The
 * engineer's details (task id, program line, key, args hash) are folded below each call.
 *
 * What waits together: a pass stops at the effects its program asked for at one point of
 * its evaluation and waits for all of them before it goes on (src/workflows/mission-loop.ts
 * runs a batch with Promise.all), so every effect of a mission waiting at a time belongs to
 * one batch: the calls of one `pmap`/`pcalls`. Calls one after another in a program cannot
 * be shown ahead: the next one's args may depend on the first one's result, so the program
 * cannot reach it before the first ran (the prompt tells the model to ask together in one
 * pmap what belongs together: src/navigator/prompt/firstMessage.ts). Each verdict is still
 * its own update, bound to its own args hash and recorded on its own.
 */
import type {
  ApprovalRecord,
  EffectDone,
  Json,
  PendingApproval as WaitingEffect,
} from '../workflows/mission/contract.ts';
import { type NavigatorTool, asksConfirmation } from '../navigator/tool.ts';
import { valueHash } from '../history/hash.ts';
import { type Effects, confirmWhy, effectsBox, moneyOf, readable, valuesList } from './explain.ts';
import { type Fragment, html } from './html.ts';
import type { ConsoleContext } from './mission/pages.ts';
import { effectLink } from './mission/pass-view.ts';
import { mayDecideNow, othersDecide } from './roles.ts';
import { duration, when } from './time.ts';
import { confirmText } from './approvals.ts';

/** A mission as its effect cards need it (its status, read once). */
export interface MissionForCards {
  missionId: string;
  agent: string;
  input: Json;
  effectApprovals: readonly WaitingEffect[];
  approvals: readonly ApprovalRecord[];
  effectsDone?: readonly EffectDone[];
}

/** An id for an HTML attribute: the same text always gives the same id, and no two missions share one. */
export const htmlId = (prefix: string, text: string): string => `${prefix}-${text.replace(/[^\w-]/g, '_')}`;

const toolOf = (ctx: ConsoleContext, agent: string, name: string): NavigatorTool | undefined =>
  ctx.agents?.get(agent)?.agent.tools.find((t) => t.name === name);

/** Every effect of `m` waiting now: one card, a batch when there are several. */
export function effectsCard(ctx: ConsoleContext, m: MissionForCards): Fragment | '' {
  const mine = m.effectApprovals.filter((e) => mayDecideNow(e.approvers));
  const others = m.effectApprovals.filter((e) => !mayDecideNow(e.approvers));
  const othersCards = others.map((e) =>
    othersDecide(html`${toolOf(ctx, m.agent, e.tool)?.description ?? e.tool} <small>(${e.tool})</small>`, e.approvers!),
  );
  if (!mine.length) return html`${othersCards}`;
  const url = `/missions/${encodeURIComponent(m.missionId)}`;
  const batch = mine.length > 1;
  const totals = moneyTotals(ctx, m.agent, mine);
  const entry = ctx.agents?.get(m.agent);
  return html`<section class="card approval${batch ? ' batch' : ''}" id="${htmlId('effects', m.missionId)}" aria-label="${batch ? `${mine.length} calls` : 'a call'} of mission ${m.missionId} waiting for approval">
    <h3>${batch ? `${mine.length} calls wait for your approval together` : (toolOf(ctx, m.agent, mine[0]!.tool)?.description ?? `${mine[0]!.tool} waits for your approval`)}</h3>
    <p class="asked"><span class="status waiting">waiting for you</span> · mission <a href="${url}">${m.missionId}</a> (${m.agent}${entry?.agent.description ? `: ${entry.agent.description}` : ''}) asks since ${when(mine[0]!.since)}</p>
    ${batch ? html`<p>The program asked for these together: approve them all, or approve or deny each. Each verdict is recorded on its own, for the values shown.</p>` : ''}
    ${totals.length ? html`<p class="total"><strong>Total asked for:</strong> ${totals.join(' · ')}</p>` : ''}
    ${missionContext(ctx, m)}
    ${mine.map((e, i) => effectItem(ctx, m, e, batch ? i + 1 : null))}
    ${batch ? approveAllForm(ctx, m, mine) : ''}
  </section>${othersCards}`;
}

/** The total of the money amounts of `effects`, per currency: `16,600 EUR`, `300 USD`. */
export function moneyTotals(
  ctx: ConsoleContext,
  agent: string,
  effects: readonly Pick<WaitingEffect, 'tool' | 'args'>[],
): string[] {
  const sums = new Map<string, number>();
  for (const e of effects) {
    const money = moneyOf(toolOf(ctx, agent, e.tool)?.input, e.args);
    if (money) sums.set(money.currency, (sums.get(money.currency) ?? 0) + money.amount);
  }
  return [...sums].map(([currency, amount]) => `${readable(amount)} ${currency}`);
}

/** The mission's input and what it did so far (the effects it ran, with their args where an approval kept them). */
function missionContext(ctx: ConsoleContext, m: MissionForCards): Fragment {
  const done = (m.effectsDone ?? []).filter((d) => d.status !== 'running');
  const argsOf = (key: string) =>
    [...m.approvals].reverse().find((a) => a.key === key && a.outcome === 'approved')?.args;
  const denied = m.approvals.filter((a) => a.outcome !== 'approved');
  return html`<details class="context" open><summary>The mission’s input, and what it did so far</summary>
    ${valuesList(ctx.agents?.get(m.agent)?.agent.input, m.input)}
    ${
      done.length || denied.length
        ? html`<ul class="done">${done.map((d) => {
            const args = argsOf(d.key);
            return html`<li>${d.status === 'completed' ? 'Done' : 'Failed'}: ${toolOf(ctx, m.agent, d.tool)?.description ?? d.tool}${args !== undefined ? html` <small>(${argsLine(ctx, m.agent, d.tool, args)})</small>` : ''}</li>`;
          })}${denied.map((a) => html`<li>${a.outcome === 'denied' ? `Denied by ${a.by ?? 'someone'}` : 'Not approved in time'}: ${toolOf(ctx, m.agent, a.tool)?.description ?? a.tool} <small>(${argsLine(ctx, m.agent, a.tool, a.args)})</small></li>`)}</ul>`
        : html`<p class="note">Nothing done out in the world yet.</p>`
    }
  </details>`;
}

/** Args on one line, as people read them: `vendor: Acme GmbH, amount: 2,100 EUR`. */
export function argsLine(ctx: ConsoleContext, agent: string, tool: string, args: Json): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return readable(args);
  const shape = (toolOf(ctx, agent, tool)?.input?.shape ?? {}) as Record<string, { description?: string }>;
  const money = moneyOf(toolOf(ctx, agent, tool)?.input, args);
  return Object.entries(args)
    .filter(([k]) => !(money && k === money.currencyField))
    .map(
      ([k, v]) =>
        `${k}: ${money && k === money.field ? `${readable(money.amount)} ${money.currency}` : readable(v as Json, shape[k]?.description)}`,
    )
    .join(', ');
}

/** One waiting call: what it does, its values, the forms, and the engineer's details folded. */
function effectItem(ctx: ConsoleContext, m: MissionForCards, e: WaitingEffect, n: number | null): Fragment {
  const tool = toolOf(ctx, m.agent, e.tool);
  const url = `/missions/${encodeURIComponent(m.missionId)}`;
  const action = (what: string) => `${url}/effects/${encodeURIComponent(e.key)}/${what}`;
  const effects = effectWords(e, tool);
  const confirm = confirmText(effects);
  const shown = html`<input type="hidden" name="argsHash" value="${valueHash(e.args)}" />`;
  const csrf = html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;
  const label = `${n === null ? '' : `${n}. `}${tool?.description ?? e.tool}`;
  return html`<article class="effect" id="effect-${e.key.slice(0, 16)}">
    ${n === null ? '' : html`<h4>${label}</h4>`}
    ${valuesList(tool?.input, e.args)}
    <p class="asked"><a href="${effectLink(m.missionId, e.key)}">the program that asked for it</a></p>
    ${effectsBox(effects, 'Deny')}
    <p class="deadline">${e.deadline ? html`Decide ${when(e.deadline)}${deadlineIn(e)}; then it is denied.` : 'No deadline.'}</p>
    <form method="post" action="${action('approve')}" class="inline">${csrf}${shown}<input name="note" placeholder="note (optional)" aria-label="note for ${label}" /> <button class="primary"${confirm ? html` data-confirm="${confirm}"` : ''}>Approve${n === null ? '' : ` ${n}`}</button></form>
    <form method="post" action="${action('deny')}" class="inline">${csrf}${shown}<input name="reason" placeholder="why" aria-label="why deny ${label}" required /> <button class="danger">Deny${n === null ? '' : ` ${n}`}</button></form>
    <details class="engineer-details"><summary>Details for engineers</summary>
      <dl class="values"><dt>tool</dt><dd><code>${e.tool}</code> (${tool ? tool.sideEffect : 'class not known here'}${tool?.destructive ? ', destructive' : ''})</dd>
        ${e.taskId ? html`<dt>task</dt><dd><code>${e.taskId}</code></dd>` : ''}
        ${e.call ? html`<dt>program line ${e.call.line}</dt><dd><code>${e.call.text}</code></dd>` : ''}
        <dt>key</dt><dd><code>${e.key}</code></dd><dt>args hash</dt><dd><code>${valueHash(e.args)}</code></dd></dl>
    </details>
  </article>`;
}

/** "(in 1 day)" beside a deadline's time: how long is left, in words. */
const deadlineIn = (e: WaitingEffect): string => {
  const ms = Date.parse(e.deadline ?? '') - Date.parse(e.since);
  return Number.isFinite(ms) && ms > 0 ? `, ${duration(ms)} after it asked` : '';
};

/** What Approve and Deny of one call do; it asks first by the tool's class (asksConfirmation). */
export function effectWords(e: Pick<WaitingEffect, 'tool'>, tool: NavigatorTool | undefined): Effects {
  const asks = asksConfirmation(tool);
  return {
    approve: [
      tool
        ? 'It runs with exactly these values.'
        : `${e.tool} runs with exactly these values (this console does not know the tool).`,
    ],
    reject: [`It does not run; the mission’s program is told your reason and goes on from there.`],
    irreversible: asks,
    ...(asks ? { why: confirmWhy(tool) } : {}),
  };
}

/** Approve all: one form, each call's own verdict sent with the hash of the args shown. */
function approveAllForm(ctx: ConsoleContext, m: MissionForCards, effects: readonly WaitingEffect[]): Fragment {
  const url = `/missions/${encodeURIComponent(m.missionId)}/effects-batch/approve`;
  const batch = JSON.stringify(effects.map((e) => ({ key: e.key, argsHash: valueHash(e.args) })));
  const asking = effects.filter((e) => asksConfirmation(toolOf(ctx, m.agent, e.tool)));
  const totals = moneyTotals(ctx, m.agent, effects);
  const confirm = asking.length
    ? `Approve all ${effects.length}? ${asking
        .map((e) => confirmWhy(toolOf(ctx, m.agent, e.tool)))
        .filter((w, i, all) => all.indexOf(w) === i)
        .join('; ')}: it cannot be taken back from here.${totals.length ? `\n\nIn all: ${totals.join(', ')}.` : ''}`
    : undefined;
  return html`<form method="post" action="${url}" class="approve-all"><input type="hidden" name="_csrf" value="${ctx.csrf}" /><input type="hidden" name="batch" value="${batch}" />
    <input name="note" placeholder="note for all (optional)" aria-label="note for all ${effects.length}" /> <button class="primary"${confirm ? html` data-confirm="${confirm}"` : ''}>Approve all ${effects.length}</button></form>`;
}

/** The batch an Approve all form carried: each key with the hash of the args shown, or null when it is not one. */
export function batchOf(form: Record<string, unknown>): Array<{ key: string; argsHash?: string }> | null {
  try {
    const parsed = JSON.parse(String(form.batch ?? '')) as unknown;
    if (!Array.isArray(parsed) || !parsed.length) return null;
    const ok = parsed.every((b) => b && typeof b === 'object' && typeof (b as { key?: unknown }).key === 'string');
    return ok
      ? parsed.map((b: { key: string; argsHash?: unknown }) => ({
          key: b.key,
          ...(typeof b.argsHash === 'string' ? { argsHash: b.argsHash } : {}),
        }))
      : null;
  } catch {
    return null;
  }
}

/** "Approved by ana at 15:31 — fine" for each verdict on an effect (and the deadlines that passed). */
export function effectVerdicts(ctx: ConsoleContext, agent: string, records: readonly ApprovalRecord[]): Fragment[] {
  return records.map((r) => {
    const verb = r.outcome === 'approved' ? 'Approved' : r.outcome === 'denied' ? 'Denied' : 'Not approved in time';
    const who = r.outcome === 'expired' ? '' : ` by ${r.by ?? 'someone'}${r.role ? ` as ${r.role}` : ''}`;
    return html`<p><strong class="verdict">${verb}${who}</strong> ${when(r.at)}${r.note ? html` — “${r.note}”` : ''} · ${toolOf(ctx, agent, r.tool)?.description ?? r.tool} <small>(${argsLine(ctx, agent, r.tool, r.args)})</small></p>`;
  });
}
