/** Mission pages: the list, one mission (status, decision, progress, journal, ledger, actions), and its actions. */
import { ledgerResultText } from '../../client/mission/text.ts';
import type { Context, Hono } from 'hono';
import type { AgentRegistry } from '../../navigator/registry.ts';
import type { NavigatorClient } from '../../client/navigator-client.ts';
import { MissionRejected } from '../../client/mission/client.ts';
import type { DecisionContract, Json, MissionOverview, Pending, StatusView } from '../../workflows/mission/contract.ts';
import { type Fragment, fingerprint, html, page, valueBlock } from '../html.ts';
import type { AcceptedUpdate } from '../../client/verdicts.ts';
import { valuesList } from '../explain.ts';
import { when } from '../time.ts';
import { checklist, checklistFromText, checklistOf } from './checklist.ts';
import { WAITING_FOR_YOU, statusBadge, statusesOf } from '../waiting.ts';
import { decisionCard, shownArgsHash } from '../approvals.ts';
import { argsLine, batchOf, effectVerdicts, effectsCard } from '../effect-cards.ts';
import { doneSoFar, statusWords } from '../words.ts';
import { type HistoryReads, unanswered, unansweredBanner } from '../history-reads.ts';
import { NotRunYetError, orFromHistory } from '../../history/reader.ts';
import type { ConsoleAudits } from '../audits.ts';
import { verdictRole } from '../roles.ts';
import { livePassNow, livePassSection } from '../live-pass.ts';
import type { RecentVerdicts } from '../recent.ts';
import { type StartNotices, startNotice } from '../start-notices.ts';

export interface ConsoleContext {
  navigator: NavigatorClient;
  csrf: string;
  /** the console's `--user`; each request's own `by` (the token's name, else this) is `c.get('by')` */
  user: string;
  /** agents the console knows, see agents.ts */
  agents?: AgentRegistry;
  /** what was read of each workflow, kept for the history it was read from */
  reads: HistoryReads;
  /** the workflow code and replay worker the audit page replays with */
  audits: ConsoleAudits;
  /** verdicts given through this console, newest first (the inbox's "Decided recently") */
  recent?: RecentVerdicts;
  /** what a start from the form could not check, for the page it redirects to (start-notices.ts) */
  notices?: StartNotices;
}

const csrfField = (ctx: ConsoleContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;

/** Buttons for a decision: Approve/Reject for approve/reject contracts, one per allowed value, else a JSON field. */
export function decisionForm(
  ctx: ConsoleContext,
  action: string,
  pending: Pending,
  contract: DecisionContract | undefined,
  confirm?: string,
): Fragment {
  const note = html`<input name="note" placeholder="note (optional)" aria-label="note" size="30" />`;
  const hidden = html`${csrfField(ctx)}<input type="hidden" name="key" value="${pending.key}" />`;
  const button = (label: string, value: Json, cls = '', ask?: string) =>
    html`<button class="${cls}" name="value" value="${JSON.stringify(value)}"${ask ? html` data-confirm="${ask}"` : ''}>${label}</button>`;
  if (
    contract?.approveValue !== undefined &&
    contract.approveValue !== null &&
    contract.rejectValue !== undefined &&
    contract.rejectValue !== null
  ) {
    return html`<form method="post" action="${action}">${hidden}${button('Approve', contract.approveValue, 'primary', confirm)} ${button('Reject', contract.rejectValue, 'danger')} ${note}</form>`;
  }
  if (pending.allowed?.length) {
    return html`<form method="post" action="${action}">${hidden}${pending.allowed.map((v) => html`${button(typeof v === 'string' ? v : JSON.stringify(v), v)} `)}${note}</form>`;
  }
  return html`<form method="post" action="${action}">${hidden}<input name="value" placeholder="JSON value" size="30" /> ${note} <button class="primary">Decide</button></form>`;
}

/** What happens when nobody decides in time, in words. */
export function atDeadline(onTimeout: Pending['onTimeout'], contract?: DecisionContract): string {
  if (onTimeout === 'fail') return 'the mission fails';
  if (!onTimeout) return 'nothing happens';
  const expiry = contract?.expiryValue;
  // name the value an approver would otherwise have to look up in the agent's code
  return expiry === undefined || expiry === null
    ? 'the expiry value is written for you'
    : `${JSON.stringify(expiry)} is written for you`;
}

const WAITING = 'waiting';

export function missionRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/missions', async (c) => {
    const status = c.req.query('status');
    const search = c.req.query('q')?.trim();
    // "waiting" is the mission's own status (it waits for a person), not Temporal's: running ones are asked
    const waiting = status === WAITING;
    const query = waiting
      ? "ExecutionStatus = 'Running'"
      : status
        ? `ExecutionStatus = '${status.replace(/[^A-Za-z]/g, '')}'`
        : undefined;
    const found = (await ctx.navigator.list({ kind: 'missions', query, limit: 200 })).filter(
      (w) => !search || w.workflowId.includes(search),
    );
    const statuses = await statusesOf(ctx, 'missions', found);
    const rows = found
      .map((w, i) => ({ ...w, status: statuses[i]! }))
      .filter((w) => !waiting || w.status === WAITING_FOR_YOU);
    const body = html`<form method="get">
        <select name="status" aria-label="status">
          ${['', WAITING, 'Running', 'Completed', 'Failed', 'Canceled', 'Terminated'].map((s) => html`<option value="${s}" ${s === (status ?? '') ? 'selected' : ''}>${s === WAITING ? WAITING_FOR_YOU : s || 'any status'}</option>`)}
        </select>
        <input name="q" placeholder="id contains" aria-label="id contains" value="${search ?? ''}" /> <button>Filter</button>
      </form>
      <table>
        <tr><th>mission</th><th>status</th><th>started</th></tr>
        ${rows.map((w) => html`<tr><td data-label="mission"><a href="/missions/${encodeURIComponent(w.workflowId)}">${w.workflowId}</a></td><td data-label="status">${statusBadge(w.status)}</td><td data-label="started">${when(w.startTime)}</td></tr>`)}
      </table>`;
    return c.html(page('Missions', body));
  });

  app.get('/missions/:id', async (c) => c.html(await missionPage(ctx, c.req.param('id'))));

  // a value too large to show in the page, whole (stored payloads resolved), as a JSON download
  app.get('/missions/:id/journal/:key', async (c) => {
    const id = c.req.param('id');
    const key = c.req.param('key');
    const overview = await (await ctx.reads.at(id)).get('overview', () => ctx.navigator.mission(id).overview());
    const entry = overview.journal.entries.find(([k]) => k === key);
    if (!entry) return c.json({ message: `mission ${id} has no journal entry ${key}` }, 404);
    return downloadJson(c, entry[1], `${id}-${key}.json`);
  });
  app.get('/missions/:id/ledger/:seq', async (c) => {
    const id = c.req.param('id');
    const seq = Number(c.req.param('seq'));
    const overview = await (await ctx.reads.at(id)).get('overview', () => ctx.navigator.mission(id).overview());
    const entry = overview.ledger.find((e) => e.seq === seq);
    if (!entry || entry.result === undefined)
      return c.json({ message: `mission ${id} has no result for ledger entry ${c.req.param('seq')}` }, 404);
    return downloadJson(c, entry.result, `${id}-ledger-${seq}.json`);
  });

  app.post('/missions/:id/decide', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const key = String(form.key ?? '');
    const raw = String(form.value ?? '');
    let value: Json;
    try {
      value = JSON.parse(raw) as Json;
    } catch {
      return c.html(await missionPage(ctx, id, `the value is not JSON: ${raw}`), 400);
    }
    const mission = ctx.navigator.mission(id);
    const contract = (await mission.decisions().catch(() => [])).find((d) => d.key === key);
    const role = verdictRole(c, contract?.approvers, `decision ${key}`);
    if (role instanceof Response) return role;
    try {
      await mission.decide(key, value, { by: c.get('by'), ...role, ...(form.note ? { note: String(form.note) } : {}) });
      const verdict =
        JSON.stringify(value) === JSON.stringify(contract?.approveValue)
          ? 'Approved'
          : JSON.stringify(value) === JSON.stringify(contract?.rejectValue)
            ? 'Rejected'
            : `Decided ${raw}`;
      recentMission(ctx, id, {
        verdict,
        what: contract?.description ?? `decision ${key}`,
        by: c.get('by'),
        role: role.role,
        note: form.note,
      });
    } catch (err) {
      if (err instanceof MissionRejected) return c.html(await missionPage(ctx, id, err.message), 400);
      throw err;
    }
    return c.redirect(`/missions/${encodeURIComponent(id)}`, 303);
  });

  /** A person's verdict on a mission effect waiting for approval (bound to the args shown). */
  app.post('/missions/:id/effects/:key/:verdict{approve|deny}', async (c) => {
    const id = c.req.param('id');
    const key = c.req.param('key');
    const form = await c.req.parseBody();
    const mission = ctx.navigator.mission(id);
    const now = await mission.status();
    const waiting = (now.effectApprovals ?? []).find((e) => e.key === key);
    const role = verdictRole(c, waiting?.approvers, `effect ${key}${waiting ? ` (${waiting.tool})` : ''}`);
    if (role instanceof Response) return role;
    try {
      const shown = { key, by: c.get('by'), ...role, ...shownArgsHash(form) };
      const approve = c.req.param('verdict') === 'approve';
      if (approve) await mission.approveEffect({ ...shown, ...(form.note ? { note: String(form.note) } : {}) });
      else await mission.denyEffect(String(form.reason ?? '') || `denied from the console by ${c.get('by')}`, shown);
      recentMission(ctx, id, {
        verdict: approve ? 'Approved' : 'Denied',
        what: effectWhat(ctx, now.agent, waiting),
        by: c.get('by'),
        role: role.role,
        note: approve ? form.note : form.reason,
      });
    } catch (err) {
      if (err instanceof MissionRejected) return c.html(await missionPage(ctx, id, err.message), 400);
      throw err;
    }
    return c.redirect(`/missions/${encodeURIComponent(id)}`, 303);
  });

  /**
   * Approve all of a batch: each call's own approveEffect update, with the hash of the args
   * the card showed for it, so each is bound and recorded on its own. One refused (its args
   * changed, decided meanwhile) stops nothing already recorded: the page says which.
   */
  app.post('/missions/:id/effects-batch/approve', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const batch = batchOf(form);
    if (!batch) return c.html(await missionPage(ctx, id, 'the form named no calls to approve'), 400);
    const mission = ctx.navigator.mission(id);
    const now = await mission.status();
    const waiting = now.effectApprovals ?? [];
    const refused: string[] = [];
    for (const item of batch) {
      const w = waiting.find((e) => e.key === item.key);
      const role = verdictRole(c, w?.approvers, `effect ${item.key}${w ? ` (${w.tool})` : ''}`);
      if (role instanceof Response) return role;
      try {
        await mission.approveEffect({
          key: item.key,
          by: c.get('by'),
          ...role,
          ...(item.argsHash ? { argsHash: item.argsHash } : {}),
          ...(form.note ? { note: String(form.note) } : {}),
        });
        recentMission(ctx, id, {
          verdict: 'Approved',
          what: effectWhat(ctx, now.agent, w),
          by: c.get('by'),
          role: role.role,
          note: form.note,
        });
      } catch (err) {
        if (!(err instanceof MissionRejected)) throw err;
        refused.push(`${w?.tool ?? item.key}: ${err.message}`);
      }
    }
    if (refused.length)
      return c.html(await missionPage(ctx, id, `${refused.length} of ${batch.length}: ${refused.join('; ')}`), 400);
    return c.redirect(`/missions/${encodeURIComponent(id)}`, 303);
  });

  /** A journal change by a person: write a value, or reset a task so the next pass runs it again. */
  app.post('/missions/:id/journal', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const key = String(form.key ?? '').trim();
    try {
      if (form.what === 'reset') await ctx.navigator.mission(id).resetTask(key);
      else {
        let value: Json;
        try {
          value = JSON.parse(String(form.value ?? '')) as Json;
        } catch {
          return c.html(await missionPage(ctx, id, `the value is not JSON: ${String(form.value ?? '')}`), 400);
        }
        await ctx.navigator.mission(id).write(key, value);
      }
    } catch (err) {
      if (err instanceof MissionRejected) return c.html(await missionPage(ctx, id, err.message), 400);
      throw err;
    }
    return c.redirect(`/missions/${encodeURIComponent(id)}`, 303);
  });

  /** The audit against Temporal history, on demand (it replays the history). */
  app.get('/missions/:id/audit', async (c) => {
    const id = c.req.param('id');
    const report = await ctx.navigator.mission(id).audit(await ctx.audits.options());
    const body = html`<div class="card"><span class="status ${report.ok ? 'ok' : ''}">${report.ok ? 'audit passed' : 'audit FAILED'}</span>
        · journal rebuilt from history ${report.journal.matches ? 'matches' : 'differs from'} the workflow
        · external effects run twice: ${report.duplicateEffects.length}
        · replay: ${report.replay.ok ? 'deterministic' : report.replay.errors.join('; ')}</div>
      ${report.problems.length ? html`<div class="problem"><ul>${report.problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
      <h2>Where each task was committed</h2>
      <table><tr><th>task</th><th>committed by</th><th>event</th></tr>
        ${report.provenance.map((p) => html`<tr><td><code>${p.key}</code></td><td>${p.source}</td><td>${p.eventId}</td></tr>`)}</table>
      <p><a href="/missions/${encodeURIComponent(id)}">back to the mission</a></p>`;
    return c.html(page(`Audit of ${id}`, body));
  });

  app.post('/missions/:id/cancel', async (c) => {
    const id = c.req.param('id');
    try {
      await ctx.navigator.mission(id).cancel(`cancelled from the console by ${c.get('by')}`);
    } catch (err) {
      if (err instanceof MissionRejected) return c.html(await missionPage(ctx, id, err.message), 400);
      throw err;
    }
    return c.redirect(`/missions/${encodeURIComponent(id)}`, 303);
  });
}

/** A verdict the mission accepted, for the inbox's "Decided recently". */
function recentMission(
  ctx: ConsoleContext,
  id: string,
  v: { verdict: string; what: string; by: string; role: string | undefined; note: unknown },
): void {
  ctx.recent?.add({
    verdict: v.verdict,
    what: v.what,
    by: v.by,
    ...(v.role ? { role: v.role } : {}),
    ...(v.note ? { note: String(v.note) } : {}),
    href: `/missions/${encodeURIComponent(id)}`,
    where: `mission ${id}`,
  });
}

/** A waiting effect in words: its tool's description and its args. */
function effectWhat(ctx: ConsoleContext, agent: string, w: StatusView['effectApprovals'][number] | undefined): string {
  if (!w) return 'an effect';
  const tool = ctx.agents?.get(agent)?.agent.tools.find((t) => t.name === w.tool);
  return `${tool?.description ?? w.tool} (${argsLine(ctx, agent, w.tool, w.args)})`;
}

async function missionPage(ctx: ConsoleContext, id: string, problem?: string): Promise<Fragment> {
  const m = ctx.navigator.mission(id);
  // read once per point of its history (a closed run is replayed here, from its history)
  const at = await ctx.reads.at(id);
  // one read for what the workflow's state answers (a closed run replays once, not six times);
  // a running mission no worker answers: a banner, and the rest as its history holds it
  const [read, events, decided] = await Promise.all([
    orFromHistory<MissionOverview & { at?: number }>(
      () => at.get('overview', () => m.overview()),
      () => m.overviewFromHistory(),
    ).catch((err: unknown) => (err instanceof NotRunYetError ? null : Promise.reject(err))),
    at.get('timeline', () => m.timeline()).catch(() => []),
    at.get('decided', () => m.decided()).catch(() => []),
  ]);
  if (!read) return notRunYetPage(ctx, `Mission ${id}`, at.description.taskQueue, id);
  const { value: overview, unavailable } = read;
  const { status, journal, ledger, progress, summaries, decisions: contracts } = overview;
  const scheduledBy = at.description.searchAttributes.TemporalScheduledById?.[0] as string | undefined;
  // Temporal's word: a terminated or timed-out mission never said so in its own state
  const open = at.description.status.name === 'RUNNING';
  // a running mission's pass as it goes (from the pass activity's heartbeat): kept up to date by the page's script
  const live = open && status.status === 'running' ? await livePassNow(m.workflow) : null;
  const pending = status.pending;
  const contract = pending ? contracts.find((d) => d.key === pending.key) : undefined;
  const body = html`
    ${unavailable ? unansweredBanner(unavailable, overview.at ?? 0) : ''}
    ${startNotice(ctx.notices?.take(id))}
    ${problem ? html`<div class="problem">Not recorded: ${problem}</div>` : ''}
    <div class="card">
      ${statusBadge(statusWords(status.status, status))} · agent ${status.agent} · <a href="/missions/${encodeURIComponent(id)}/passes#pass-${status.passes}">pass ${status.passes}</a> · ${doneSoFar(status)}
      ${scheduledBy ? html` · started by schedule <a href="/schedules/${encodeURIComponent(scheduledBy)}">${scheduledBy}</a>` : ''}
      ${status.resumedFrom ? html` · resumed from <a href="/missions/${encodeURIComponent(status.resumedFrom.workflowId)}">${status.resumedFrom.workflowId}</a>` : ''}
      <details><summary>Input</summary>${valueBlock(status.input ?? null)}</details>
      ${status.error ? html`<div class="problem">${status.error}</div>` : ''}
      ${status.result !== undefined ? html`<p>Result:</p>${valueBlock(status.result)}` : ''}
    </div>
    ${live ? livePassSection(id, live) : ''}
    ${decidedBox(ctx, status, contracts, decided)}
    ${pending ? decisionCard(ctx, { missionId: id, agent: status.agent, input: status.input ?? null, pending, contract }) : ''}
    ${effectsCard(ctx, { missionId: id, agent: status.agent, input: status.input ?? null, effectApprovals: status.effectApprovals ?? [], approvals: status.approvals ?? [], ...(status.effectsDone ? { effectsDone: status.effectsDone } : {}) })}
    ${progressBox(ctx, status.agent, progress, summaries)}
    <h2>Journal</h2>
    <table><tr><th>#</th><th>task</th><th>value</th></tr>
      ${journal.entries.map(([k, v], i) => html`<tr><td>${i + 1}</td><td><code>${k}</code></td><td>${valueBlock(v, `/missions/${encodeURIComponent(id)}/journal/${encodeURIComponent(k)}`)}</td></tr>`)}
    </table>
    <h2 id="ledger">Ledger (the tool calls)</h2>
    <table><tr><th>#</th><th>tool</th><th>class</th><th>task</th><th>status</th><th>attempts</th><th>result</th></tr>
      ${ledger.map((e) => html`<tr><td>${e.seq}</td><td>${e.tool}</td><td>${e.sideEffect}</td><td>${e.taskId ?? ''}</td><td>${e.status}</td><td>${e.attempts}</td><td>${e.error !== undefined || e.unavailable || e.resultChars !== undefined ? html`<pre>${e.error ?? ledgerResultText(e)}</pre>` : valueBlock(e.result ?? null, `/missions/${encodeURIComponent(id)}/ledger/${e.seq}`)}</td></tr>`)}
    </table>
    <h2>Timeline (from Temporal history)</h2>
    <table><tr><th>event</th><th>time</th><th>what</th></tr>
      ${events.map((l) => html`<tr><td>${l.eventId}</td><td>${when(l.time)}</td><td>${l.text}</td></tr>`)}
    </table>
    <p><a href="/missions/${encodeURIComponent(id)}/passes">What the model did: each pass's programs, prints and effects</a> · <a href="/missions/${encodeURIComponent(id)}/audit">Run the audit against history</a></p>
    ${open ? engineerTools(ctx, id) : ''}`;
  // a closed mission changes no more, nor one whose own state has ended (its workflow returns
  // a moment later): no stream polling its status
  return page(
    `Mission ${id}`,
    body,
    open && !ENDED.has(status.status)
      ? {
          live: `/live/missions/${encodeURIComponent(id)}?seen=${fingerprint(unavailable ? unanswered(unavailable) : status)}`,
        }
      : {},
  );
}

/** The statuses after which a mission's state changes no more. */
const ENDED = new Set<StatusView['status']>(['completed', 'failed', 'cancelled', 'budget_exhausted']);

/**
 * A run no worker has taken yet (started while none polled its task queue): its history
 * holds only the start, so there is nothing to show but that, and what would start it.
 */
export function notRunYetPage(ctx: ConsoleContext, title: string, taskQueue: string, id: string): Fragment {
  const body = html`${startNotice(ctx.notices?.take(id))}
    <div class="problem" role="alert"><strong>Not started yet.</strong> No worker has taken it: it starts when a worker polls task queue <code>${taskQueue}</code> (<code>navigator worker --task-queue ${taskQueue}</code>). Reload this page then.</div>`;
  return page(title, body);
}

/** "Approved by ana at 15:31" for each decision the mission got, and what came of it once it is there. */
function decidedBox(
  ctx: ConsoleContext,
  status: StatusView,
  contracts: readonly DecisionContract[],
  decided: readonly AcceptedUpdate[],
): Fragment | string {
  const effects = status.approvals ?? [];
  if (!decided.length && !effects.length) return '';
  const verb = (key: unknown, value: unknown) => {
    const c = contracts.find((d) => d.key === key);
    if (c && JSON.stringify(value) === JSON.stringify(c.approveValue)) return 'Approved';
    if (c && JSON.stringify(value) === JSON.stringify(c.rejectValue)) return 'Rejected';
    return `Decided ${JSON.stringify(value)}`;
  };
  return html`<div class="card decided">
    ${decided.map((d) => html`<p><strong class="verdict">${verb(d.arg.key, d.arg.value)} by ${String(d.arg.by ?? 'someone')}${d.arg.role ? ` as ${String(d.arg.role)}` : ''}</strong> ${when(d.at)}${d.arg.note ? html` — “${String(d.arg.note)}”` : ''} <small>(<code>${String(d.arg.key)}</code>)</small></p>`)}
    ${effectVerdicts(ctx, status.agent, effects)}
    ${outcome(status)}
  </div>`;
}

/** What came of the mission: its result once it finished, else that the page follows it. */
function outcome(status: StatusView): Fragment {
  if (status.status === 'completed')
    return html`<div class="outcome"><p class="ok">The mission completed. Its result:</p>${valuesList(undefined, status.result ?? null)}</div>`;
  if (status.error) return html`<div class="outcome problem">The mission ${status.status}: ${status.error}</div>`;
  if (status.status === 'waiting') return html`<p class="outcome">The mission waits for another decision.</p>`;
  return html`<p class="outcome">The mission is ${status.status}; this page shows the outcome when it arrives.</p>`;
}

/** The plan as a checklist for people: the agent's plan when this console knows the agent, else read from the progress text. */
function progressBox(
  ctx: ConsoleContext,
  agent: string,
  progress: string,
  summaries: Record<string, string> | null,
): Fragment | string {
  const plan = ctx.agents?.get(agent)?.agent.checklist;
  const items = plan ? checklistOf(plan, summaries) : checklistFromText(progress, summaries);
  return items.length ? html`<h2>Progress</h2>${checklist(items)}` : '';
}

/**
 * What an engineer does to a running mission, apart from the approver's buttons and each
 * behind a confirmation: write or reset a journal entry (the mission takes it as a task's
 * outcome, or runs the task again), cancel it.
 */
function engineerTools(ctx: ConsoleContext, id: string): Fragment {
  const url = `/missions/${encodeURIComponent(id)}`;
  return html`<details class="card engineer"><summary><h2>Engineer tools</h2></summary>
    <p>These change what the mission remembers or stop it. Approving or rejecting never needs them.</p>
    <form method="post" action="${url}/journal">${csrfField(ctx)}
      <p><label>Task key <input name="key" required /></label> <label>Value (JSON) <input name="value" size="30" /></label></p>
      <button name="what" value="write" data-confirm="Write this value into the mission's journal? The mission takes it as the task's outcome and does not run the task.">Write journal entry</button>
      <button name="what" value="reset" data-confirm="Reset this task? The next pass runs it again, and its tool may act again.">Reset task</button></form>
    <form method="post" action="${url}/cancel">${csrfField(ctx)}<button class="danger" data-confirm="Cancel mission ${id}? It stops for good; a waiting decision is dropped.">Cancel mission</button></form>
  </details>`;
}

/** A JSON value as a file the browser saves. */
function downloadJson(c: Context, value: unknown, name: string): Response {
  return c.body(JSON.stringify(value, null, 2), 200, {
    'content-type': 'application/json; charset=utf-8',
    'content-disposition': `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`,
  });
}
