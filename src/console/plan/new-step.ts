/**
 * Adding a step to a plan in review: pick one of the plan agent's tools, then fill a form
 * made from that tool's input schema (forms.ts) with the step's id, description, what it
 * runs after and whether it waits for approval; a whole step as JSON stays the fallback
 * (and the only way for an agent this console does not know, an agent step or a
 * question). The plan's validator judges the step: a refusal is shown with its message
 * next to the field it names, and the form keeps what was typed.
 */
import type { Json, PlanProblem, Step, StepSpecInput } from '../../plans/schema.ts';
import type { NavigatorTool } from '../../navigator/tool.ts';
import { argsFields, readFields } from '../forms.ts';
import { type Fragment, html } from '../html.ts';
import type { ConsoleContext } from '../mission/pages.ts';

type Form = Record<string, unknown>;

/** The add-step form's state: the tool picked, and after a refusal what was typed and each field's problem. */
export interface Adding {
  tool: string;
  /** the form as sent (id, description, dependsOn, requiresApproval, args JSON) */
  form?: Form;
  /** the args as the fields sent them */
  typed?: Record<string, Json>;
  /** by args key */
  problems?: Record<string, string>;
  /** the step's own fields; `args`: the args as a whole (or their JSON) */
  stepProblems?: Partial<Record<StepField, string>>;
}

type StepField = 'id' | 'description' | 'dependsOn' | 'args';

/** A new step's form had a field that is not what it takes: nothing was sent to the plan. */
export class StepFieldsProblem extends Error {
  constructor(
    message: string,
    readonly adding: Adding,
  ) {
    super(message);
  }
}

/** The `Add a step` card of a plan in review; `stepJson`: a refused step as JSON, kept as typed. */
export function addStepCard(
  ctx: ConsoleContext,
  planId: string,
  agent: string,
  steps: readonly Step[],
  adding?: Adding,
  stepJson?: string,
): Fragment {
  const url = `/plans/${encodeURIComponent(planId)}`;
  const tools = ctx.agents?.get(agent)?.agent.tools ?? [];
  const tool = adding ? tools.find((t) => t.name === adding.tool) : undefined;
  const unknown =
    adding && !tool
      ? html`<p class="problem" role="alert">Agent ${agent} has no tool ${adding.tool} here: pick one of the list, or give the step as JSON.</p>`
      : '';
  const chooser = tools.length
    ? html`<form method="get" action="${url}#add-step" class="chooser"><p><label for="add-tool">Tool</label><br />
        <select id="add-tool" name="add">${tools.map((t) => html`<option value="${t.name}" ${t.name === adding?.tool ? 'selected' : ''}>${t.name}${t.description ? ` — ${t.description}` : ''}</option>`)}</select>
        <button>Show its args as a form</button></p></form>`
    : '';
  return html`<div class="card" id="add-step"><h2>Add a step</h2>
    ${unknown}${chooser}${tool ? stepForm(ctx, url, tool, steps, adding!) : ''}
    <details ${tools.length && !stepJson ? '' : 'open'}><summary>Or a whole step as JSON</summary>
      <form method="post" action="${url}/edit"><input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <textarea name="step" rows="3" aria-label="the new step as JSON" placeholder='{"id": "notify", "description": "Tell the team", "tool": "echo", "args": {"value": 1}, "dependsOn": ["first"]}'>${stepJson ?? ''}</textarea>
        <button name="what" value="add">Add step</button></form></details></div>`;
}

function stepForm(
  ctx: ConsoleContext,
  url: string,
  tool: NavigatorTool,
  steps: readonly Step[],
  adding: Adding,
): Fragment {
  const was = (field: string) => String(adding.form?.[field] ?? '');
  const after = new Set(listOf(adding.form?.dependsOn));
  const problem = (field: StepField) => {
    const p = adding.stepProblems?.[field];
    return p ? html`<br /><span class="field-problem" id="problem-new-${field}">${p}</span>` : '';
  };
  const invalid = (field: StepField) =>
    adding.stepProblems?.[field] ? html` aria-invalid="true" aria-describedby="problem-new-${field}"` : '';
  const fields = argsFields(tool.input, adding.typed ?? {}, adding.problems ?? {});
  const approval = was('requiresApproval');
  const json = was('args');
  return html`<form method="post" action="${url}/edit" class="new-step" novalidate><input type="hidden" name="_csrf" value="${ctx.csrf}" /><input type="hidden" name="tool" value="${tool.name}" />
    <p><strong>${tool.name}</strong>${tool.description ? html`: ${tool.description}` : ''}</p>
    <p class="field"><label for="new-id">Step id</label> <small>(letters, digits, _ and -; other steps name it in <code>$id.field</code>)</small><br /><input id="new-id" name="id" value="${was('id')}" required${invalid('id')} />${problem('id')}</p>
    <p class="field"><label for="new-description">What it does, in words</label><br /><input id="new-description" name="description" value="${was('description')}" size="40"${invalid('description')} />${problem('description')}</p>
    ${
      steps.length
        ? html`<fieldset class="field"${invalid('dependsOn')}><legend>Runs after</legend>${steps.map((s) => html`<label class="check"><input type="checkbox" name="dependsOn" value="${s.id}" ${after.has(s.id) ? 'checked' : ''} /> <code>${s.id}</code></label> `)}${problem('dependsOn')}</fieldset>`
        : ''
    }
    <p class="field"><label for="new-approval">Waits for a person’s approval</label><br /><select id="new-approval" name="requiresApproval">
      <option value="">as its tool’s class says</option><option value="true" ${approval === 'true' ? 'selected' : ''}>yes</option><option value="false" ${approval === 'false' ? 'selected' : ''}>no</option></select></p>
    <h3>Args</h3><p><small>A text starting with <code>$</code> names another step’s result (<code>$read.content</code>): add that step to “Runs after”.</small></p>
    ${fields ?? html`<p>Its input schema gives no fields: give the args as JSON.</p>`}
    <details ${json ? 'open' : ''}><summary>Or the args as JSON (used instead of the fields when given; for expressions)</summary>
      <p><textarea name="args" rows="3" aria-label="args of the new step as JSON" placeholder='{"value": {"$expr": "(count step/list)"}}'>${json}</textarea></p>${problem('args')}</details>
    <button name="what" value="add-fields" class="primary">Add step</button></form>`;
}

/** A form value that may repeat (checkboxes) as a list of strings. */
const listOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string' && x !== '');

/** The step the add form sent; throws StepFieldsProblem for a field that is not what it takes. */
export function stepFromForm(form: Form): StepSpecInput {
  const adding: Adding = { tool: String(form.tool ?? ''), form };
  const json = String(form.args ?? '').trim();
  let args: Record<string, Json>;
  if (json) {
    try {
      args = JSON.parse(json) as Record<string, Json>;
    } catch (err) {
      const problem = `not JSON: ${(err as Error).message}`;
      throw new StepFieldsProblem(`the args of the new step are ${problem}`, {
        ...adding,
        typed: readFields(form).typed,
        stepProblems: { args: problem },
      });
    }
  } else {
    const read = readFields(form);
    const wrong = Object.entries(read.problems);
    if (wrong.length)
      throw new StepFieldsProblem(`the new step: ${wrong.map(([k, p]) => `${k}: ${p}`).join('; ')}`, {
        ...adding,
        typed: read.typed,
        problems: read.problems,
      });
    args = read.args;
  }
  const approval =
    form.requiresApproval === 'true' || form.requiresApproval === 'false'
      ? { requiresApproval: form.requiresApproval === 'true' }
      : {};
  return {
    id: String(form.id ?? '').trim(),
    description: String(form.description ?? '').trim(),
    tool: adding.tool,
    args,
    dependsOn: listOf(form.dependsOn),
    ...approval,
  };
}

/** The form state to show after the plan refused the step: each problem at the field its path names. */
export function refusedAdding(form: Form, problems: readonly PlanProblem[]): Adding {
  const args: Record<string, string> = {};
  const own: Partial<Record<StepField, string>> = {};
  const add = (to: Record<string, string>, key: string, message: string) =>
    (to[key] = to[key] ? `${to[key]}; ${message}` : message);
  // only the new step's problems (no step id: the new step has none usable); others stay in the list above the form
  const id = String(form.id ?? '').trim();
  for (const p of problems.filter((p) => p.stepId === id || p.stepId === null)) {
    const [head, key] = p.path.split('.');
    if (head === 'args' && key !== undefined) add(args, key, p.message);
    else if (head === 'args' || head === 'id' || head === 'description' || head === 'dependsOn')
      add(own, head, p.message);
  }
  return { tool: String(form.tool ?? ''), form, typed: readFields(form).typed, problems: args, stepProblems: own };
}
