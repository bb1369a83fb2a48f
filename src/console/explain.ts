/**
 * What an approval means, in words a manager reads: what happens on Approve and on
 * Reject (the decision's own words, or from the agent's, decision's and tools'
 * descriptions and side-effect classes),
 * values with the units their schema names ("amount in USD": `5,000 USD`), and a file
 * edit as a diff against the file's content a step of the same plan read.
 */
import type { z } from 'zod';
import type { RegisteredAgent } from '../navigator/registry.ts';
import { type NavigatorTool, asksConfirmation } from '../navigator/tool.ts';
import type { DecisionContract, Json } from '../workflows/mission/contract.ts';
import type { Step } from '../plans/schema.ts';
import type { ToolClass } from '../workflows/plan/contract.ts';
import { type LineChange, fileEditOf } from '../plans/file-edit.ts';
import { type Fragment, html, pretty } from './html.ts';
import { moneyOf, unitOf } from './words.ts';

export { moneyOf, unitOf };

export interface Effects {
  /** sentences: what Approve does */
  approve: string[];
  /** sentences: what Reject / Deny does */
  reject: string[];
  /** Approve asks "are you sure?" first: a tool it runs is external or destructive, or flagged `confirm` ({@link asksConfirmation}) */
  irreversible: boolean;
  /** why it asks, from the tool's class ("send_payout acts on an outside system") */
  why?: string;
}

/** Words that say an approval cannot be undone: only for a decision whose agent this console does not know (no tools to classify). */
const IRREVERSIBLE = /irreversib|cannot be undone/i;

/**
 * A tool's side-effect class in words, for someone who does not know the classes. The last
 * sentence follows from the same rule as the confirmation ({@link asksConfirmation}): what
 * the card says and what the button asks never disagree.
 */
export function sideEffectWords(tool: Pick<NavigatorTool, 'sideEffect' | 'destructive' | 'confirm'>): string {
  const words = {
    read_only: 'Only reads; changes nothing.',
    memory: 'Changes only the mission’s own memory.',
    local: 'Changes data on our side.',
    external: 'Acts on an outside system.',
  }[tool.sideEffect];
  const destructive = tool.destructive ? ' Overwrites or deletes what is there.' : '';
  const final =
    tool.sideEffect === 'external' || tool.destructive
      ? ' It cannot be taken back from here.'
      : tool.confirm
        ? ' Its owners ask for a second look before it runs.'
        : '';
  return `${words}${destructive}${final}`;
}

/** Why the card asks before Approve, in the tool's class's words. */
export function confirmWhy(
  tool: Pick<NavigatorTool, 'name' | 'sideEffect' | 'destructive' | 'confirm'> | undefined,
): string {
  if (!tool) return 'What it does is not known here';
  if (tool.destructive) return `${tool.name} overwrites or deletes what is there`;
  if (tool.sideEffect === 'external') return `${tool.name} acts on an outside system`;
  return `${tool.name} asks for a second look`;
}

const toolSentence = (t: NavigatorTool) =>
  `${t.name}: ${t.description ?? ''} ${sideEffectWords(t)}`.replace(/\s+/g, ' ').trim();

/** The word stem of a decision value (`"approved"` → `approve`), to find the tools that name it. */
const stem = (value: Json): string | null =>
  typeof value === 'string' && value.length >= 4 ? value.toLowerCase().replace(/(e?d|s)$/, '') : null;

/**
 * What a mission decision's Approve and Reject lead to: the decision's own words
 * (`onApprove`, `onReject`) where it gives them, else derived. Derived, the tools that act
 * outside (external or destructive) are split by whether their description names the
 * approve value ("Sends the wire of an approved hold."): those follow Approve, the others
 * Reject. Approve is irreversible when a tool it leads to is, or its words say so.
 */
export function decisionEffects(entry: RegisteredAgent | undefined, contract: DecisionContract | undefined): Effects {
  const derived = derivedEffects(entry, contract);
  const { onApprove, onReject } = contract ?? {};
  return {
    approve: onApprove ? [onApprove] : derived.approve,
    reject: onReject ? [onReject] : derived.reject,
    // the tools' classes decide; only a console that knows no tools of the agent reads the decision's words
    irreversible: entry ? derived.irreversible : IRREVERSIBLE.test(onApprove ?? ''),
    ...(derived.why ? { why: derived.why } : {}),
  };
}

function derivedEffects(entry: RegisteredAgent | undefined, contract: DecisionContract | undefined): Effects {
  const approveValue = contract?.approveValue ?? null;
  const rejectValue = contract?.rejectValue ?? null;
  const head = (value: Json) => (value === null ? [] : [`The mission goes on with ${JSON.stringify(value)}.`]);
  if (!entry) return { approve: head(approveValue), reject: head(rejectValue), irreversible: false };
  const acting = entry.agent.tools.filter((t) => t.sideEffect === 'external' || t.destructive);
  const word = stem(approveValue);
  const afterApprove = word ? acting.filter((t) => (t.description ?? '').toLowerCase().includes(word)) : [];
  const afterReject = afterApprove.length ? acting.filter((t) => !afterApprove.includes(t)) : [];
  const unsplit = afterApprove.length ? [] : acting;
  const may = (tools: NavigatorTool[]) => tools.map((t) => `Then ${toolSentence(t)}`);
  const purpose = entry.agent.description ? [`${entry.agent.name}: ${entry.agent.description}`] : [];
  const asking = [...afterApprove, ...unsplit].find((t) => asksConfirmation(t));
  return {
    approve: [...purpose, ...head(approveValue), ...may(afterApprove), ...may(unsplit)],
    reject: [...head(rejectValue), ...may(afterReject), ...may(unsplit)],
    irreversible: !!asking,
    ...(asking ? { why: confirmWhy(asking) } : {}),
  };
}

/** What approving and denying a plan step do: its tool runs, or it is skipped and its dependents blocked. */
export function stepEffects(
  entry: RegisteredAgent | undefined,
  step: Pick<Step, 'id' | 'tool' | 'agent'>,
  steps: readonly Step[],
  known?: ToolClass,
): Effects {
  const found = step.tool ? entry?.agent.tools.find((t) => t.name === step.tool) : undefined;
  // a console that does not know the agent: the class the plan's catalog gives (the plan's status carries it)
  const tool =
    found ?? (step.tool && known ? ({ name: step.tool, description: '', ...known } as NavigatorTool) : undefined);
  const runs = tool
    ? `Runs ${toolSentence(tool)}`
    : step.agent
      ? `Starts a mission of agent ${step.agent}.`
      : `Runs ${step.tool ?? 'the step'}.`;
  const dependents = dependentsOf(step.id, steps);
  const blocked = dependents.length ? ` Steps that depend on it are blocked: ${dependents.join(', ')}.` : '';
  // a step of a tool this console does not know: asked about (its class is unknown); a sub-mission's own effects wait in it
  const asks = step.tool ? asksConfirmation(tool) : false;
  return {
    approve: [runs],
    reject: [`The step is skipped; nothing runs.${blocked}`],
    irreversible: asks,
    ...(asks ? { why: confirmWhy(tool) } : {}),
  };
}

/** The steps that depend on `id`, directly or through others. */
function dependentsOf(id: string, steps: readonly Step[]): string[] {
  const out = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of steps)
      if (!out.has(s.id) && s.dependsOn.some((d) => d === id || out.has(d))) {
        out.add(s.id);
        grew = true;
      }
  }
  return [...out];
}

/** The card's "On Approve / On Reject" lines. */
export function effectsBox(effects: Effects, reject = 'Reject'): Fragment {
  const approve = effects.approve.join(' ');
  // the reason comes from the tool's class, as the confirmation itself does
  const warning = effects.why
    ? `${effects.why}: you will be asked to confirm.`
    : IRREVERSIBLE.test(approve)
      ? 'You will be asked to confirm.'
      : 'This cannot be undone: you will be asked to confirm.';
  return html`<div class="effects">
    <p><strong>On Approve:</strong> ${approve}${effects.irreversible ? html` <strong class="irreversible">${warning}</strong>` : ''}</p>
    <p><strong>On ${reject}:</strong> ${effects.reject.join(' ')}</p>
  </div>`;
}

/** A value as a person reads it: numbers grouped with their unit, strings bare. */
export function readable(value: Json, description?: string): string {
  if (typeof value === 'number') {
    const unit = unitOf(description);
    return `${value.toLocaleString('en-US', { maximumFractionDigits: 20 })}${unit ? ` ${unit}` : ''}`;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return JSON.stringify(value);
}

type Shape = Record<string, z.ZodType>;

/** Each field of `value` with its readable value and its schema's description; other values as JSON. */
export function valuesList(schema: z.ZodObject | undefined, value: Json): Fragment {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return html`<pre>${pretty(value)}</pre>`;
  const shape: Shape = (schema?.shape as Shape | undefined) ?? {};
  // an amount beside its currency field is shown with it: "2,100 EUR"
  const money = moneyOf(schema, value);
  return html`<dl class="values">
    ${Object.entries(value).map(([k, v]) => {
      const description = shape[k]?.description;
      const block = typeof v === 'string' && v.includes('\n');
      const plain = v === null || typeof v !== 'object';
      const text =
        money?.currencyField && k === money.field
          ? `${readable(v)} ${money.currency}`
          : plain
            ? readable(v, description)
            : '';
      return html`<dt>${k}${description ? html` <small>(${description})</small>` : ''}</dt>
        <dd>${block ? html`<pre class="text">${v}</pre>` : plain ? text : nested(v)}</dd>`;
    })}
  </dl>`;
}

/** A nested value: a list of plain values as a list, a map as its fields, else indented JSON. */
function nested(v: Json): Fragment {
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object'))
    return html`<ul class="plain">${v.map((x) => html`<li>${readable(x)}</li>`)}</ul>`;
  if (
    v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => x === null || typeof x !== 'object')
  )
    return valuesList(undefined, v);
  return html`<pre>${pretty(v)}</pre>`;
}

/**
 * A step that writes a file (args `path` and `content`), as a diff against the content a
 * completed step of the same plan read from that path; a new file as its text.
 */
export function fileEdit(args: Json, steps: readonly Step[]): Fragment | null {
  const edit = fileEditOf(args, steps);
  if (!edit) return null;
  const { path, content, changes } = edit;
  if (!changes) return html`<p>New content of <code>${path}</code>:</p><pre class="text">${content}</pre>`;
  if (changes.every((c) => c.kind === 'same')) return html`<p><code>${path}</code> stays as it is (same content).</p>`;
  return html`<p>Changes to <code>${path}</code>:</p>${diffBlock(changes)}`;
}

function diffBlock(changes: readonly LineChange[]): Fragment {
  const sign = { same: ' ', add: '+', del: '-' } as const;
  return html`<pre class="diff">${changes.map((c) => html`<span class="${c.kind}">${sign[c.kind]} ${c.line}\n</span>`)}</pre>`;
}
