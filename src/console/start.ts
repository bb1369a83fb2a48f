/**
 * The Start page: a mission or a plan. For an agent the console knows, the mission's input
 * is a form made from the agent's input schema (the same fields as a plan step's args),
 * checked against that schema before anything starts: a refused value is named next to
 * its field and the form keeps what was typed. The input as JSON stays as the fallback,
 * and the only way for agents the console does not know (their worker checks the input).
 */
import type { Hono } from 'hono';
import { MissionRejected } from '../client/mission/client.ts';
import { PlanRejected } from '../client/plan/client.ts';
import { StartRefused, servedAgents } from '../client/served-agents.ts';
import type { Json } from '../workflows/mission/contract.ts';
import { agentChoices, inputProblems, planProblems } from './agents.ts';
import { argsFields, readFields } from './forms.ts';
import { type Fragment, html, page } from './html.ts';
import { inlineMarkdown } from './markdown.ts';
import type { ConsoleContext } from './mission/pages.ts';

type Form = Record<string, unknown>;

/** What a refused start sends back into the page: the problem, each field's problem, and what was typed. */
interface Refusal {
  problem?: string;
  kind?: 'mission' | 'plan';
  form?: Form;
  /** by top-level input field */
  fields?: Record<string, string>;
  /** the input as the fields sent it (kept in the form) */
  typed?: Record<string, Json>;
}

export function startRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/start', async (c) => {
    const agent = c.req.query('agent')?.trim();
    if (agent && !ctx.agents?.get(agent))
      return c.html(
        await startPage(ctx, { problem: `this console does not know agent ${agent}: give its input as JSON` }),
        404,
      );
    return c.html(await startPage(ctx, {}, agent));
  });
  app.post('/start/mission', async (c) => {
    const form = await c.req.parseBody();
    const agent = String(form.agent ?? '');
    const read = missionInput(form);
    if ('problem' in read)
      return c.html(
        await startPage(ctx, { ...read, kind: 'mission', form }, form.form === 'fields' ? agent : undefined),
        400,
      );
    const problems = fieldProblems(ctx, agent, read.input);
    if (problems) {
      const refusal = {
        problem: `the input does not fit agent ${agent}: ${problems.lines.join('; ')}`,
        kind: 'mission' as const,
        form,
        fields: problems.fields,
        typed: read.typed,
      };
      return c.html(await startPage(ctx, refusal, form.form === 'fields' ? agent : undefined), 400);
    }
    try {
      const m = await ctx.navigator.start(agent, read.input);
      ctx.notices?.add(m.id, m.startWarning);
      return c.redirect(`/missions/${encodeURIComponent(m.id)}`, 303);
    } catch (err) {
      if (err instanceof MissionRejected || err instanceof StartRefused)
        return c.html(
          await startPage(
            ctx,
            { problem: err.message, kind: 'mission', form, typed: read.typed },
            form.form === 'fields' ? agent : undefined,
          ),
          400,
        );
      throw err;
    }
  });
  app.post('/start/plan', async (c) => {
    const form = await c.req.parseBody();
    const agent = String(form.agent ?? '');
    const request = String(form.request ?? '').trim() || undefined;
    const given = String(form.document ?? '').trim();
    let document: unknown;
    try {
      document = given ? JSON.parse(given) : undefined;
    } catch (err) {
      return c.html(
        await startPage(ctx, { problem: `the plan is not JSON: ${(err as Error).message}`, kind: 'plan', form }),
        400,
      );
    }
    const problems = document === undefined ? null : planProblems(ctx.agents, agent, document);
    if (problems)
      return c.html(
        await startPage(ctx, {
          problem: `the plan does not fit agent ${agent}: ${problems.join('; ')}`,
          kind: 'plan',
          form,
        }),
        400,
      );
    try {
      const p = await ctx.navigator.startPlan({ agent, request, document });
      ctx.notices?.add(p.id, p.startWarning);
      return c.redirect(`/plans/${encodeURIComponent(p.id)}`, 303);
    } catch (err) {
      if (err instanceof PlanRejected || err instanceof StartRefused)
        return c.html(await startPage(ctx, { problem: err.message, kind: 'plan', form }), 400);
      throw err;
    }
  });
}

/** The input a mission form sent: its JSON when given, else its fields. */
function missionInput(
  form: Form,
):
  | { input: Json; typed?: Record<string, Json> }
  | { problem: string; fields?: Record<string, string>; typed?: Record<string, Json> } {
  const json = String(form.input ?? '').trim();
  if (json) {
    try {
      return { input: JSON.parse(json) as Json };
    } catch (err) {
      return { problem: `the input is not JSON: ${(err as Error).message}` };
    }
  }
  const read = readFields(form);
  const wrong = Object.entries(read.problems);
  if (wrong.length)
    return { problem: wrong.map(([k, p]) => `${k}: ${p}`).join('; '), fields: read.problems, typed: read.typed };
  return { input: read.args, typed: read.typed };
}

/** The schema's problems with an input, one line each and by top-level field; null when it fits or the agent is unknown here. */
function fieldProblems(
  ctx: ConsoleContext,
  agent: string,
  input: Json,
): { lines: string[]; fields: Record<string, string> } | null {
  const entry = ctx.agents?.get(agent);
  if (!entry) return null;
  const parsed = entry.agent.input.safeParse(input ?? {});
  if (parsed.success) return null;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const [top, ...rest] = issue.path.map(String);
    if (top === undefined) continue;
    const text = rest.length ? `${rest.join('.')}: ${issue.message}` : issue.message;
    fields[top] = fields[top] ? `${fields[top]}; ${text}` : text;
  }
  return { lines: inputProblems(ctx.agents, agent, input) ?? [], fields };
}

const csrfField = (ctx: ConsoleContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;

/** The start page; `agent`: show the mission form made from this (known) agent's input schema. */
async function startPage(ctx: ConsoleContext, refused: Refusal = {}, agent?: string): Promise<Fragment> {
  const was = (kind: 'mission' | 'plan', field: string) =>
    refused.kind === kind ? String(refused.form?.[field] ?? '') : '';
  const choices = ctx.agents ? agentChoices(ctx.agents) : await servedChoices(ctx);
  const known = html`<datalist id="agent-names">${choices.map((a) => html`<option value="${a.name}"></option>`)}</datalist>
    ${choices.length ? html`<p><small>${ctx.agents ? 'Agents' : `Agents the workers of task queue ${ctx.navigator.taskQueue} serve`}: ${choices.map((a, i) => html`${i ? ' · ' : ''}<code>${a.name}</code>${a.fields.length ? ` (${a.fields.join(', ')})` : ''}`)}</small></p>` : ''}`;
  const entry = agent ? ctx.agents?.get(agent) : undefined;
  const mission = entry ? fieldsForm(ctx, entry.agent, refused) : jsonForm(ctx, was);
  return page(
    'Start',
    html`${refused.problem ? html`<div class="problem" role="alert">Not started: ${refused.problem}</div>` : ''}
      ${known}
      ${ctx.agents && choices.length ? chooser(choices, agent) : ''}
      ${mission}
      <div class="card"><h2>A plan</h2><form method="post" action="/start/plan">${csrfField(ctx)}
        <p><input name="agent" placeholder="agent" aria-label="agent" list="agent-names" required value="${was('plan', 'agent')}" /></p><p><textarea name="request" rows="3" aria-label="request" placeholder="what the plan should do (the agent's model writes the plan)">${was('plan', 'request')}</textarea></p>
        <p><textarea name="document" rows="5" aria-label="plan (JSON)" placeholder='or the plan itself: {"steps": [{"id": "read", "description": "...", "tool": "read_file", "args": {"path": "package.json"}}]}'>${was('plan', 'document')}</textarea></p>
        <button class="primary">Plan it</button></form></div>`,
  );
}

/**
 * The agents the task queue's workers announced (src/client/served-agents.ts), for a console
 * that knows none itself: the names to pick from, with their input's fields.
 */
async function servedChoices(ctx: ConsoleContext): Promise<Array<{ name: string; fields: string[] }>> {
  const served = await servedAgents(ctx.navigator.client, ctx.navigator.taskQueue).catch(() => null);
  return (served?.agents ?? []).map((a) => ({
    name: a.name,
    fields: Object.keys((a.input?.properties as object | undefined) ?? {}),
  }));
}

/** Pick a known agent to get its input as a form (a GET form: works without a script). */
function chooser(choices: ReadonlyArray<{ name: string }>, agent: string | undefined): Fragment {
  return html`<form method="get" action="/start" class="card chooser"><h2>A mission</h2>
    <p><label for="start-agent">Agent</label><br /><select id="start-agent" name="agent">${choices.map((a) => html`<option value="${a.name}" ${a.name === agent ? 'selected' : ''}>${a.name}</option>`)}</select>
    <button>Show its input as a form</button></p></form>`;
}

function fieldsForm(
  ctx: ConsoleContext,
  agent: { name: string; description?: string; input: import('zod').ZodObject },
  refused: Refusal,
): Fragment {
  const typed = refused.kind === 'mission' ? (refused.typed ?? {}) : {};
  const json = refused.kind === 'mission' ? String(refused.form?.input ?? '') : '';
  const fields = argsFields(agent.input, typed, refused.fields ?? {});
  return html`<div class="card"><h2>A mission of ${agent.name}</h2>
    ${agent.description ? html`<p>${inlineMarkdown(agent.description)}</p>` : ''}
    <form method="post" action="/start/mission" novalidate>${csrfField(ctx)}<input type="hidden" name="agent" value="${agent.name}" /><input type="hidden" name="form" value="fields" />
      ${fields ?? html`<p>Its input schema gives no fields: give the input as JSON.</p>`}
      <details ${json ? 'open' : ''}><summary>Or the input as JSON (used instead of the fields when given)</summary>
        <p><textarea name="input" rows="4" aria-label="input (JSON)">${json}</textarea></p></details>
      <button class="primary">Start mission</button></form></div>`;
}

function jsonForm(ctx: ConsoleContext, was: (kind: 'mission' | 'plan', field: string) => string): Fragment {
  return html`<div class="card"><h2>A mission, input as JSON</h2><form method="post" action="/start/mission">${csrfField(ctx)}
    <p><input name="agent" placeholder="agent" aria-label="agent" list="agent-names" required value="${was('mission', 'agent')}" /></p><p><textarea name="input" rows="4" aria-label="input (JSON)" placeholder='{"recipient": "bob", "amount": 5000}'>${was('mission', 'input')}</textarea></p>
    <button class="primary">Start mission</button></form></div>`;
}
