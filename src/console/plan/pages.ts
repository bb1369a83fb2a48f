/** Plan pages: the list, one plan (review with edits, or the running checklist with approvals), and its actions. */
import type { Context, Hono } from 'hono';
import { PlanRejected, parseItem } from '../../client/plan/client.ts';
import type { Json, PlanProblem, Step } from '../../plans/schema.ts';
import type { PendingQuestion, PlanStatusView, ProgressEvent } from '../../workflows/plan/contract.ts';
import { type Fragment, fingerprint, html, page, pretty } from '../html.ts';
import { type ConsoleContext, notRunYetPage } from '../mission/pages.ts';
import { unanswered, unansweredBanner } from '../history-reads.ts';
import { NotRunYetError, WorkerUnavailableError, orFromHistory } from '../../history/reader.ts';
import { startNotice } from '../start-notices.ts';
import { shownArgsHash, stepApprovalCard } from '../approvals.ts';
import type { AcceptedUpdate } from '../../client/verdicts.ts';
import { when } from '../time.ts';
import { dagPicture } from './dag.ts';
import { argsFields, argsFromForm } from '../forms.ts';
import { WAITING_FOR_YOU, planWaits, statusBadge, statusesOf } from '../waiting.ts';
import { type Adding, StepFieldsProblem, addStepCard, refusedAdding, stepFromForm } from './new-step.ts';
import { questionText } from '../../client/plan/text.ts';
import { summaryTable, valueView } from '../plan-summary.ts';
import { planStatusWords, stepStatusWords } from '../words.ts';
import { mayDecideNow, verdictRole } from '../roles.ts';

const csrfField = (ctx: ConsoleContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;
const planUrl = (id: string, rest = '') => `/plans/${encodeURIComponent(id)}${rest}`;

function problemsBox(problems: readonly PlanProblem[] | undefined, message?: string): Fragment | string {
  if (!message && !problems?.length) return '';
  return html`<div class="problem">${message ? html`<strong>Not applied:</strong> ${message}` : ''}
    ${problems?.length ? html`<ul>${problems.map((p) => html`<li>${p.stepId ? html`<code>${p.stepId}</code> ` : ''}${p.path ? html`<code>${p.path}</code> ` : ''}${p.message}</li>`)}</ul>` : ''}</div>`;
}

/** Steps added, removed and changed (args, description, dependencies) between two versions, as a short list. */
function diffList(before: readonly Step[], after: readonly Step[]): Fragment | string {
  const old = new Map(before.map((s) => [s.id, s]));
  const now = new Map(after.map((s) => [s.id, s]));
  const lines: Fragment[] = [];
  for (const s of after) {
    const was = old.get(s.id);
    if (!was) lines.push(html`<li>added <code>${s.id}</code></li>`);
    else {
      const changed = (['description', 'args', 'input', 'dependsOn', 'status'] as const).filter(
        (k) => JSON.stringify(was[k]) !== JSON.stringify(s[k]),
      );
      for (const k of changed)
        lines.push(
          html`<li><code>${s.id}</code> ${k}: <code>${JSON.stringify(was[k] ?? null)}</code> → <code>${JSON.stringify(s[k] ?? null)}</code></li>`,
        );
    }
  }
  for (const s of before) if (!now.has(s.id)) lines.push(html`<li>removed <code>${s.id}</code></li>`);
  if (before.map((s) => s.id).join() !== after.map((s) => s.id).join() && lines.length === 0)
    lines.push(html`<li>order: ${after.map((s) => s.id).join(', ')}</li>`);
  return lines.length ? html`<ul>${lines}</ul>` : 'no change to the steps';
}

/** What happens when nobody approves a step in time, in words. */
export const stepAtDeadline = (onTimeout: 'deny' | 'fail'): string =>
  onTimeout === 'fail' ? 'the plan fails' : 'the step is denied (skipped, and steps that depend on it are blocked)';

/** The last progress (percent and log line) each step's tool reported. */
function latestProgress(events: readonly ProgressEvent[]): Map<string, { progress?: number; log?: string }> {
  const out = new Map<string, { progress?: number; log?: string }>();
  for (const e of events) {
    const was = out.get(e.stepId) ?? {};
    out.set(e.stepId, { progress: e.progress ?? was.progress, log: e.logs?.at(-1) ?? was.log });
  }
  return out;
}

const stepArgs = (s: Step) => (s.agent !== undefined ? (s.input ?? {}) : (s.args ?? {}));

/**
 * A pending step's args: a form made from its tool's input schema when this console knows
 * the agent's tool, with the JSON as the fallback; JSON alone otherwise.
 */
function argsEditor(ctx: ConsoleContext, id: string, s: Step, agent: string): Fragment {
  const hidden = html`${csrfField(ctx)}<input type="hidden" name="stepId" value="${s.id}" />`;
  const tool = s.tool ? ctx.agents?.get(agent)?.agent.tools.find((t) => t.name === s.tool) : undefined;
  const fields = s.agent === undefined ? argsFields(tool?.input, stepArgs(s), {}, `${s.id}-`) : null;
  const json = (button: string) => html`<form method="post" action="${planUrl(id, '/edit')}">${hidden}
    <textarea name="args" rows="4" aria-label="args of ${s.id} as JSON">${pretty(stepArgs(s))}</textarea><button name="what" value="args">${button}</button></form>`;
  if (!fields) return json('Save args');
  return html`<form method="post" action="${planUrl(id, '/edit')}" class="args" novalidate>${hidden}${fields}<button name="what" value="fields">Save args</button></form>
    <details><summary>as JSON</summary>${json('Save as JSON')}</details>`;
}

/**
 * What a step runs: its tool, agent, question (a computed one as the text it computed once
 * the step ran, else the expression and the steps it reads) or compute expression.
 */
function stepKind(s: Step): Fragment | string {
  if (s.tool !== undefined) return s.tool;
  if (s.ask) return html`question: ${questionText(s)}`;
  if (s.compute !== undefined) return html`compute: <code>${s.compute}</code>`;
  return html`agent ${s.agent ?? ''}`;
}

function reviewRows(ctx: ConsoleContext, id: string, steps: readonly Step[], agent: string): Fragment {
  return html`<table>
    <tr><th>step</th><th>what</th><th>tool</th><th>args</th><th>depends on</th><th>approval</th><th></th></tr>
    ${steps.map(
      (s) => html`<tr id="step-${s.id}">
        <td><code>${s.id}</code></td>
        <td>
          <form method="post" action="${planUrl(id, '/edit')}">${csrfField(ctx)}<input type="hidden" name="stepId" value="${s.id}" />
            <input name="description" value="${s.description}" size="28" aria-label="description of step ${s.id}" /> <button name="what" value="description">Save</button></form>
        </td>
        <td>${stepKind(s)}</td>
        <td>${s.compute !== undefined ? (s.status === 'pending' ? '' : s.status) : s.status === 'pending' ? argsEditor(ctx, id, s, agent) : html`<pre>${pretty(stepArgs(s))}</pre> (${s.status})`}</td>
        <td>${s.dependsOn.join(', ')}</td>
        <td>${s.requiresApproval ? 'requires approval' : ''}</td>
        <td>
          <form method="post" action="${planUrl(id, '/edit')}" class="inline">${csrfField(ctx)}<input type="hidden" name="stepId" value="${s.id}" /><button name="what" value="skip">Skip</button></form>
          <form method="post" action="${planUrl(id, '/edit')}" class="inline">${csrfField(ctx)}<input type="hidden" name="stepId" value="${s.id}" /><button name="what" value="remove" class="danger">Remove</button></form>
        </td>
      </tr>`,
    )}
  </table>`;
}

function runRows(ctx: ConsoleContext, id: string, view: PlanStatusView, events: readonly ProgressEvent[]): Fragment {
  const toolOf = (s: Step) =>
    s.tool ? ctx.agents?.get(view.agent)?.agent.tools.find((t) => t.name === s.tool) : undefined;
  const waiting = new Map(view.approvals.map((a) => [a.stepId, a]));
  const asked = new Map((view.questions ?? []).map((q) => [q.stepId, q]));
  const progress = latestProgress(events);
  return html`<table>
    <tr><th>step</th><th>what</th><th>after</th><th>status</th><th>attempts</th><th>args</th><th>result</th></tr>
    ${(view.plan?.steps ?? []).map((s) => {
      const approval = waiting.get(s.id);
      return html`<tr id="step-${s.id}">
        <td><code>${s.id}</code></td><td>${s.description}${s.ask || s.compute !== undefined ? html`<br /><small>${stepKind(s)}</small>` : ''}</td><td>${s.dependsOn.join(', ')}</td>
        <td class="status">${stepStatusWords(s.status)}${s.reason ? html`<br /><small>${s.reason}</small>` : ''}${progressNote(s, progress.get(s.id))}
          ${approval ? (mayDecideNow(approval.approvers) ? html`<br /><a href="#approve-${approval.key}">waiting for you: approve or deny above</a>` : html`<br /><small>waiting for ${approval.approvers!.join(' or ')}</small>`) : ''}${questionForm(ctx, id, asked.get(s.id))}</td>
        <td>${s.result?.attempts ?? ''}</td>
        <td>${valueView(approval && approval.item === null ? approval.args : stepArgs(s), toolOf(s))}</td>
        <td>${s.result ? (s.result.error !== undefined ? html`<pre>${s.result.error}</pre>` : valueView(s.result.value ?? null, undefined, `/plans/${encodeURIComponent(id)}/steps/${encodeURIComponent(s.id)}/result`)) : ''}</td>
      </tr>`;
    })}
  </table>`;
}

/** A question step waiting for its answer: the question, the answer's schema, a JSON field. */
function questionForm(ctx: ConsoleContext, id: string, q: PendingQuestion | undefined): Fragment | string {
  if (!q) return '';
  return html`<form method="post" action="${planUrl(id, `/steps/${encodeURIComponent(q.stepId)}/answer`)}" class="question">${csrfField(ctx)}
    <p><strong>${q.question}</strong></p><small>answer: JSON matching <code>${JSON.stringify(q.schema)}</code></small><br />
    <textarea name="value" rows="2" placeholder="JSON answer"></textarea> <button class="primary">Answer</button></form>`;
}

/** A running step's last reported progress, e.g. `60% · step 3 of 5`. */
function progressNote(step: Step, p: { progress?: number; log?: string } | undefined): Fragment | string {
  if (!p || step.status !== 'running') return '';
  return html`<br /><small class="progress">${[p.progress !== undefined ? `${p.progress}%` : '', p.log ?? ''].filter(Boolean).join(' · ')}</small>`;
}

/** `adding`: the add-step form for a tool picked (or refused, with what was typed). */
async function planPage(
  ctx: ConsoleContext,
  id: string,
  outcome?: { message?: string; problems?: readonly PlanProblem[]; adding?: Adding; stepJson?: string },
): Promise<Fragment> {
  const plan = ctx.navigator.plan(id);
  // read once per point of its history (a closed run is replayed here, from its history)
  const at = await ctx.reads.at(id);
  // a read no worker answers is not hidden as empty: the page then comes from history
  const tolerated =
    <T>(fallback: T) =>
    (err: unknown) =>
      err instanceof WorkerUnavailableError ? Promise.reject(err) : fallback;
  const verdicts = await at.get('verdicts', () => plan.stepVerdicts()).catch(() => []);
  // a running plan no worker answers: a banner, and the rest as its history holds it
  const read = await orFromHistory(
    async () => {
      const [status, versions, progress] = await Promise.all([
        at.get('status', () => plan.status()),
        at.get('versions', () => plan.versions()).catch(tolerated([])),
        at.get('progress', () => plan.progress()).catch(tolerated(null)),
      ]);
      return [status, versions, progress, 0 as number] as const;
    },
    async () => {
      const h = await plan.fromHistory();
      return [h.status, h.versions, h.progress, h.at] as const;
    },
  ).catch((err: unknown) => (err instanceof NotRunYetError ? null : Promise.reject(err)));
  if (!read) return notRunYetPage(ctx, `Plan ${id}`, at.description.taskQueue, id);
  const {
    value: [view, versions, progress, readAt],
    unavailable,
  } = read;
  const inReview = view.status === 'review';
  const actions = inReview
    ? html`<div class="card">
        <form method="post" action="${planUrl(id, '/approve')}" class="inline">${csrfField(ctx)}<button class="primary">Start</button></form>
        <form method="post" action="${planUrl(id, '/cancel')}" class="inline">${csrfField(ctx)}<button class="danger" data-confirm="Cancel plan ${id}? Nothing of it runs.">Cancel</button></form>
        <form method="post" action="${planUrl(id, '/regenerate')}" class="inline">${csrfField(ctx)}<input name="feedback" placeholder="what to change" size="40" /> <button>Regenerate</button></form>
      </div>`
    : '';
  const history = html`<h2>Versions</h2><table><tr><th>version</th><th>change</th><th>by</th><th>at</th><th>what changed from the version before</th></tr>
    ${versions.map((v, i) => html`<tr><td>${v.version}</td><td>${v.change}</td><td>${v.by ?? ''}</td><td>${when(v.at)}</td><td>${i === 0 ? v.steps.map((s) => s.id).join(', ') : diffList(versions[i - 1]!.steps, v.steps)}</td></tr>`)}</table>`;
  const editors = inReview
    ? html`${addStepCard(ctx, id, view.agent, view.plan?.steps ?? [], outcome?.adding, outcome?.stepJson)}
        <div class="card"><h2>Order</h2>
        <form method="post" action="${planUrl(id, '/edit')}" class="reorder">${csrfField(ctx)}
          ${reorderList(view.plan?.steps ?? [])}
          <input name="order" aria-label="order of the steps" size="60" value="${(view.plan?.steps ?? []).map((s) => s.id).join(', ')}" /> <button name="what" value="reorder">Reorder</button></form></div>`
    : '';
  const body = html`
    ${unavailable ? unansweredBanner(unavailable, readAt) : ''}
    ${startNotice(ctx.notices?.take(id))}
    ${problemsBox(outcome?.problems, outcome?.message)}
    <div class="card">${planWaits(view) ? html`${statusBadge(WAITING_FOR_YOU)} (${view.status === 'review' ? 'review the plan, then Start' : 'a step needs you'}) ` : html`<span class="status">${planStatusWords(view.status)}</span>`} · agent ${view.agent} · version ${view.version}
      ${view.error ? html`<div class="problem">${view.error}</div>` : ''}</div>
    ${actions}
    ${verdictsBox(verdicts, view)}
    ${approvalCards(ctx, view)}
    ${view.plan ? dagPicture(view.plan.steps) : ''}
    ${view.plan ? (inReview ? reviewRows(ctx, id, view.plan.steps, view.agent) : runRows(ctx, id, view, progress?.events ?? [])) : view.status === 'failed' ? html`<p>No plan: it could not be made (the reason is above).</p>` : html`<p>No plan yet (the planner is writing it).</p>`}
    ${editors}
    ${view.summary && !inReview ? html`<h2>Summary</h2>${summaryTable(view.summary, view.plan?.steps ?? [])}` : ''}
    ${history}`;
  // a closed plan changes no more: no stream polling it (Temporal's word: a terminated plan never said so itself)
  const closed = at.description.status.name !== 'RUNNING';
  return page(
    `Plan ${id}`,
    body,
    closed
      ? {}
      : {
          live: `/live/plans/${encodeURIComponent(id)}?seen=${fingerprint(unavailable ? unanswered(unavailable) : [view, progress])}`,
        },
  );
}

/** "Step write_config approved by ana at 15:31", and what the step did since. */
function verdictsBox(verdicts: readonly AcceptedUpdate[], view: PlanStatusView): Fragment | string {
  if (!verdicts.length) return '';
  const stepOf = (id: unknown) => view.plan?.steps.find((s) => s.id === id);
  return html`<div class="card decided">${verdicts.map((v) => {
    const step = stepOf(v.arg.stepId);
    const note = v.arg.note ?? v.arg.reason;
    return html`<p><strong class="verdict">Step <a href="#step-${String(v.arg.stepId)}">${String(v.arg.stepId)}</a>${typeof v.arg.item === 'number' ? ` item ${v.arg.item}` : ''} ${v.name === 'approveStep' ? 'approved' : 'denied'} by ${String(v.arg.by ?? 'someone')}${typeof v.arg.role === 'string' && v.arg.role ? ` as ${v.arg.role}` : ''}</strong> ${when(v.at)}${note ? html` — “${String(note)}”` : ''}
      ${step ? html`<span class="outcome"> · now <span class="status">${step.status}</span>${step.result?.error ? html`: ${step.result.error}` : ''}</span>` : ''}</p>`;
  })}</div>`;
}

/**
 * The steps to drag into a new order (the page script refuses an order that puts a step
 * before one it depends on, and sends the rest); the text field below is the way without
 * a script.
 */
function reorderList(steps: readonly Step[]): Fragment {
  return html`<ol class="reorder" aria-label="drag a step to reorder">
    ${steps.map((s) => html`<li draggable="true" data-step="${s.id}" data-deps="${s.dependsOn.join(' ')}"><code>${s.id}</code> ${s.description}</li>`)}
  </ol><p class="reorder-problem" role="alert" hidden></p>`;
}

/** The steps waiting for approval, each as a card saying what Approve and Deny do. */
const approvalCards = (ctx: ConsoleContext, view: PlanStatusView) =>
  view.approvals.map((a) =>
    stepApprovalCard(ctx, view.planId, view.agent, a, view.plan?.steps ?? [], view.toolClasses),
  );

export function planRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/plans', async (c) => {
    const rows = await ctx.navigator.list({ kind: 'plans', limit: 200 });
    const statuses = await statusesOf(ctx, 'plans', rows);
    return c.html(
      page(
        'Plans',
        html`<table><tr><th>plan</th><th>status</th><th>started</th></tr>
          ${rows.map((w, i) => html`<tr><td data-label="plan"><a href="${planUrl(w.workflowId)}">${w.workflowId}</a></td><td data-label="status">${statusBadge(statuses[i]!)}</td><td data-label="started">${when(w.startTime)}</td></tr>`)}</table>`,
      ),
    );
  });

  app.get('/plans/:id', async (c) => {
    const tool = c.req.query('add');
    return c.html(await planPage(ctx, c.req.param('id'), tool ? { adding: { tool } } : undefined));
  });

  // a step's result too large to show in the page, whole, as a JSON download
  app.get('/plans/:id/steps/:step/result', async (c) => {
    const id = c.req.param('id');
    const view = await (await ctx.reads.at(id)).get('status', () => ctx.navigator.plan(id).status());
    const step = view.plan?.steps.find((s) => s.id === c.req.param('step'));
    if (!step?.result || step.result.error !== undefined)
      return c.json({ message: `plan ${id} has no result for step ${c.req.param('step')}` }, 404);
    const name = `${id}-${step.id}.json`.replace(/[^\w.-]/g, '_');
    return c.body(JSON.stringify(step.result.value ?? null, null, 2), 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="${name}"`,
    });
  });

  /** Runs a plan change; a refusal re-renders the page with the validator's problems. */
  const change =
    (run: (id: string, form: Record<string, unknown>, step: string, by: string, c: Context) => Promise<unknown>) =>
    async (c: Context) => {
      const id = c.req.param('id')!;
      // all: a new step's "Runs after" boxes send dependsOn once per box
      const form = (await c.req.parseBody({ all: true })) as Record<string, unknown>;
      try {
        await run(id, form, c.req.param('step') ?? '', c.get('by'), c);
      } catch (err) {
        if (err instanceof Refused) return err.response;
        // a refused new step keeps what was typed: the form's fields, or the step as JSON
        const kept = (problems: readonly PlanProblem[]) =>
          form.what === 'add-fields'
            ? { adding: refusedAdding(form, problems) }
            : form.what === 'add'
              ? { stepJson: String(form.step ?? '') }
              : {};
        if (err instanceof PlanRejected)
          return c.html(
            await planPage(ctx, id, { message: err.message, problems: err.problems, ...kept(err.problems) }),
            400,
          );
        if (err instanceof StepFieldsProblem)
          return c.html(await planPage(ctx, id, { message: err.message, adding: err.adding }), 400);
        if (err instanceof InputProblem)
          return c.html(await planPage(ctx, id, { message: err.message, ...kept([]) }), 400);
        throw err;
      }
      return c.redirect(planUrl(id), 303);
    };

  app.post(
    '/plans/:id/edit',
    change((id, form, _step, by) => ctx.navigator.plan(id).edit(editOf(form), { by })),
  );
  app.post(
    '/plans/:id/approve',
    change((id, _form, _step, by) => ctx.navigator.plan(id).approve({ by })),
  );
  app.post(
    '/plans/:id/cancel',
    change((id, _form, _step, by) => ctx.navigator.plan(id).cancel(`cancelled from the console by ${by}`, { by })),
  );
  app.post(
    '/plans/:id/regenerate',
    change((id, form, _step, by) => ctx.navigator.plan(id).regenerate(String(form.feedback ?? ''), { by })),
  );
  /** The role a step verdict is sent with (the step's tool's approvers against the request's roles), or a 403 thrown. */
  const stepRole = async (
    c: Context,
    id: string,
    form: Record<string, unknown>,
    step: string,
  ): Promise<{ role?: string }> => {
    const item = itemOf(form).item ?? null;
    const waiting = (await ctx.navigator.plan(id).status()).approvals.find((a) => a.stepId === step && a.item === item);
    const role = verdictRole(
      c,
      waiting?.approvers,
      `step ${waiting?.key ?? step}${waiting?.tool ? ` (${waiting.tool})` : ''}`,
    );
    if (role instanceof Response) throw new Refused(role);
    return role;
  };
  app.post(
    '/plans/:id/steps/:step/approve',
    change(async (id, form, step, by, c) => {
      const role = await stepRole(c, id, form, step);
      await ctx.navigator.plan(id).approveStep(step, {
        by,
        ...role,
        ...itemOf(form),
        ...shownArgsHash(form),
        ...(form.note ? { note: String(form.note) } : {}),
      });
      recentStep(ctx, 'Approved', id, step, by, role.role, form.note);
    }),
  );
  app.post(
    '/plans/:id/steps/:step/answer',
    change((id, form, step, by) =>
      ctx.navigator.plan(id).answer(step, jsonField(form.value, `the answer to ${step}`), { by }),
    ),
  );
  app.post(
    '/plans/:id/steps/:step/deny',
    change(async (id, form, step, by, c) => {
      const role = await stepRole(c, id, form, step);
      await ctx.navigator
        .plan(id)
        .denyStep(step, { by, ...role, ...itemOf(form), ...(form.reason ? { reason: String(form.reason) } : {}) });
      recentStep(ctx, 'Denied', id, step, by, role.role, form.reason);
    }),
  );
}

/** A step verdict the plan accepted, for the inbox's "Decided recently". */
function recentStep(
  ctx: ConsoleContext,
  verdict: string,
  id: string,
  step: string,
  by: string,
  role: string | undefined,
  note: unknown,
): void {
  ctx.recent?.add({
    verdict,
    what: `step ${step}`,
    by,
    ...(role ? { role } : {}),
    ...(note ? { note: String(note) } : {}),
    href: `${planUrl(id)}#step-${encodeURIComponent(step)}`,
    where: `plan ${id}`,
  });
}

/** The for-each item a verdict names (the card's hidden field), if any. */
function itemOf(form: Record<string, unknown>): { item?: number } {
  if (form.item === undefined || form.item === '') return {};
  try {
    return { item: parseItem(String(form.item)) };
  } catch (e) {
    throw new InputProblem((e as Error).message);
  }
}

/** A verdict from someone who may not give it: the 403 answered. */
class Refused extends Error {
  constructor(readonly response: Response) {
    super('refused');
  }
}

/** Bad form input (not JSON): shown like a refusal. */
class InputProblem extends Error {}

function jsonField(value: unknown, what: string): Json {
  try {
    return JSON.parse(String(value ?? '')) as Json;
  } catch (err) {
    throw new InputProblem(`${what} is not JSON: ${(err as Error).message}`);
  }
}

function editOf(form: Record<string, unknown>): unknown {
  const stepId = String(form.stepId ?? '');
  switch (form.what) {
    case 'fields':
      try {
        return { kind: 'edit', stepId, args: argsFromForm(form) };
      } catch (err) {
        throw new InputProblem(`the args of ${stepId}: ${(err as Error).message}`);
      }
    case 'args': {
      try {
        return { kind: 'edit', stepId, args: JSON.parse(String(form.args ?? '')) };
      } catch (err) {
        throw new InputProblem(`the args of ${stepId} are not JSON: ${(err as Error).message}`);
      }
    }
    case 'description':
      return { kind: 'edit', stepId, description: String(form.description ?? '') };
    case 'skip':
      return { kind: 'skip', stepId, reason: 'skipped in the console' };
    case 'remove':
      return { kind: 'remove', stepId };
    case 'add-fields':
      return { kind: 'add', step: stepFromForm(form) };
    case 'add': {
      try {
        return { kind: 'add', step: JSON.parse(String(form.step ?? '')) };
      } catch (err) {
        throw new InputProblem(`the new step is not JSON: ${(err as Error).message}`);
      }
    }
    case 'reorder':
      return {
        kind: 'reorder',
        order: String(form.order ?? '')
          .split(/[\s,]+/)
          .filter(Boolean),
      };
    default:
      throw new InputProblem('unknown change');
  }
}
