/**
 * The first user message of a pass: tools, data, expected output, the mission, the
 * external decisions and the progress checklist, separated by blank lines.
 */
import type { z } from 'zod';
import type { Json } from '../../lisp/tools.ts';
import { type Agent, renderMissionText, toolsNeedingApproval } from '../agent.ts';
import { type ResolvedDecision, renderDecisions, waitingForm } from '../decisions.ts';
import { cut, ednOfJson } from '../../lisp/printer/edn.ts';
import { fieldDescriptions, resultFieldDescriptions, zodExample, zodTypeText } from '../schema.ts';
import type { NavigatorTool } from '../tool.ts';
import { type Summaries, renderProgress } from './progress.ts';
import { renderPrints } from './feedback.ts';

const SIDE_EFFECT_NOTES: Record<NavigatorTool['sideEffect'], string> = {
  read_only: 'Read-only.',
  local: 'Side effect (local): call it inside a task.',
  memory: 'Side effect (memory): call it inside a task.',
  external: 'Side effect (external): call it inside a task; it runs at most once per task id.',
};

/** A task id for the example call: the tool name and the first short scalar arguments. */
function exampleTaskId(tool: string, args: Json): string {
  const parts =
    args && typeof args === 'object' && !Array.isArray(args)
      ? Object.values(args)
          .filter((v): v is string | number => (typeof v === 'string' && v.length <= 20) || typeof v === 'number')
          .slice(0, 2)
          .map((v) =>
            String(v)
              .toLowerCase()
              .replace(/[^a-z0-9]+/g, '_'),
          )
      : [];
  return [tool, ...parts].join('_');
}

/** What a tool that waits for a person's approval says about it. */
export const WAITS_FOR_APPROVAL =
  "Waits for a person's approval before it runs: the program pauses at the call until they decide (no model call meanwhile). " +
  'Calls made together in one pmap are put to the person together; calls one after another are asked one at a time. ' +
  'A call the person denies throws: (ex-message e) is their reason.';

/** One tool: signature, description, side-effect note, approval, argument and result field descriptions, example call. */
export function renderTool(
  tool: NavigatorTool,
  learnedShape?: string,
  opts: { waitsForApproval?: boolean } = {},
): string {
  const args = zodTypeText(tool.input);
  const ret = tool.output
    ? zodTypeText(tool.output, 'output')
    : learnedShape
      ? `${learnedShape} (as an earlier call returned)`
      : 'any';
  const example = (tool.example ?? zodExample(tool.input)) as Json;
  const argText = args === 'map' ? '' : ` ${ednOfJson(example, { keywordKeys: true })}`;
  const call = `(tool/${tool.name}${argText})`;
  const exampleCall =
    tool.sideEffect === 'read_only' ? call : `(task ${JSON.stringify(exampleTaskId(tool.name, example))} ${call})`;
  const fields = fieldDescriptions(tool.input).map(([k, d]) => `  :${k} — ${d}`);
  const results = tool.output
    ? resultFieldDescriptions(tool.output).map(([path, d]) => `  result${path ? ` ${path}` : ''} — ${d}`)
    : [];
  return [
    `tool/${tool.name} ${args === 'map' ? '{}' : args} -> ${ret}`,
    `  ${tool.description} ${SIDE_EFFECT_NOTES[tool.sideEffect]}`,
    ...(opts.waitsForApproval ? [`  ${WAITS_FOR_APPROVAL}`] : []),
    ...fields,
    ...results,
    `  Example: ${exampleCall}`,
  ].join('\n');
}

export function renderTools(
  tools: readonly NavigatorTool[],
  shapes: Readonly<Record<string, string>> = {},
  waiting: readonly string[] = [],
): string {
  if (!tools.length) return '## Tools\nNo tools available.';
  return `## Tools\n${tools.map((t) => renderTool(t, shapes[t.name], { waitsForApproval: waiting.includes(t.name) })).join('\n\n')}`;
}

/** `integer`, `string`, `vector[3]`, `map[2]`, ... */
export function dataTypeLabel(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return `vector[${v.length}]`;
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return `map[${Object.keys(v).length}]`;
  return typeof v;
}

/** A short printed sample: at most 3 items, cut to 80 characters. */
export function dataSample(v: unknown): string {
  let shown: string;
  if (Array.isArray(v)) {
    shown = ednOfJson(v.slice(0, 3));
    if (v.length > 3) shown = `${shown.slice(0, -1)} ...]`;
  } else if (v && typeof v === 'object') {
    const entries = Object.entries(v);
    shown = ednOfJson(Object.fromEntries(entries.slice(0, 3)));
    if (entries.length > 3) shown = `${shown.slice(0, -1)}, ...}`;
  } else {
    shown = ednOfJson(v);
  }
  return cut(shown, 80);
}

/** The `## Data` inventory of the input; '' when the input has no fields. */
export function renderData(input: Record<string, unknown>): string {
  const entries = Object.entries(input).filter(([, v]) => v !== undefined);
  if (!entries.length) return '';
  const lines = entries.map(([k, v]) => `${`data/${k}`.padEnd(30)} ; ${dataTypeLabel(v)}, sample: ${dataSample(v)}`);
  return `## Data\n${lines.join('\n')}`;
}

/** The `## Expected output` section from the output schema. */
export function renderExpectedOutput(output: z.ZodType, decisions: readonly ResolvedDecision[] = []): string {
  const type = zodTypeText(output);
  const lines = ['## Expected output'];
  if (type === 'any') {
    lines.push('Return any value that answers the mission: (return value)');
  } else {
    lines.push(`Return a value of this shape (a trailing ? marks an optional or nil-able part):`, type);
    lines.push(`Example: (return ${ednOfJson(zodExample(output), { keywordKeys: true })})`);
  }
  if (decisions.length) {
    lines.push(
      `(While an external decision is missing, the task that reads it ends the program with ${waitingForm(decisions[0]!.key)}: see External decisions. Your own return is the value above.)`,
    );
  }
  return lines.join('\n');
}

export interface FirstMessageOptions {
  agent: Pick<Agent, 'prompt' | 'tools' | 'output' | 'checklist'> & {
    limits?: Pick<Agent['limits'], 'maxTurns' | 'retryTurns'>;
    approvals?: Agent['approvals'];
  };
  /** the validated input (also the data/ context) */
  input: Record<string, unknown>;
  decisions?: readonly ResolvedDecision[];
  summaries?: Summaries | null;
  /** result shapes learned from earlier calls, by tool */
  toolShapes?: Readonly<Record<string, string>>;
  /** the agent's context reads made for this pass, with what each returned */
  context?: readonly ContextResult[];
}

/** A context read as made: the call, and its value (EDN) or its error. */
export interface ContextResult {
  call: string;
  value?: string;
  error?: string;
}

/** Characters of one context read's value shown (cut as prints are). */
export const CONTEXT_READ_CHARS = 4096;

/** The `## Context` section: each read made before this turn with what it returned; '' when none. */
export function renderContext(context: readonly ContextResult[] | undefined): string {
  if (!context?.length) return '';
  const parts = context.map((c) =>
    c.error !== undefined
      ? `${c.call} failed: ${c.error}`
      : `${c.call} returned:\n${renderPrints([c.value ?? 'nil'], CONTEXT_READ_CHARS)}`,
  );
  return ['## Context', 'Read before this turn (call the tool again in your program to use a value):', ...parts].join(
    '\n',
  );
}

export function firstUserMessage(opts: FirstMessageOptions): string {
  const decisions = opts.decisions ?? [];
  return [
    renderTools(
      opts.agent.tools,
      opts.toolShapes,
      toolsNeedingApproval({ tools: opts.agent.tools, approvals: opts.agent.approvals ?? {} }),
    ),
    renderData(opts.input),
    renderContext(opts.context),
    renderExpectedOutput(opts.agent.output, decisions),
    `<mission>\n${renderMissionText(opts.agent, opts.input)}\n</mission>`,
    renderDecisions([...decisions]),
    renderProgress(opts.agent.checklist, opts.summaries),
    renderBudget(opts.agent.limits),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The turn budget, stated from the first message on (the feedback counts it down). */
export function renderBudget(limits: { maxTurns: number; retryTurns: number } | undefined): string {
  if (!limits) return '';
  const turns = `You have ${limits.maxTurns} turn${limits.maxTurns === 1 ? '' : 's'} (programs) in this pass`;
  const cost =
    limits.maxTurns === 1
      ? ' Your one program must end the mission.'
      : ' Each turn is a model call: aim to do the whole mission in one program.';
  if (limits.retryTurns === 0) return `${turns}.${cost}`;
  return `${turns}, plus ${limits.retryTurns} retry turn${limits.retryTurns === 1 ? '' : 's'} used only to correct a return that does not match the expected output.${cost}`;
}
