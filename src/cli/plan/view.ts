/**
 * Plans in the terminal: the review box of the original specification (numbered steps,
 * tool, args, dependencies, "requires approval"), the live checklist, and waiting until
 * a plan needs a person or ends.
 */
import pc from 'picocolors';
import type { PlanHandle } from '../../client/plan/client.ts';
import type { Json, Plan, Step } from '../../plans/schema.ts';
import { blockedAfterWarning } from '../../plans/scheduler.ts';
import type { PlanStatusView, ProgressEvent } from '../../workflows/plan/contract.ts';
import { type Settled, closedState } from '../mission/view.ts';
import { failedAttemptLines } from '../attempts-view.ts';
import { valueHash } from '../../history/hash.ts';
import { stepApprovalLine } from '../approval-view.ts';
import { expressionText, questionText, resolvedQuestion } from '../../client/plan/text.ts';

export { expressionText, questionText };
import { fileEditOf } from '../../plans/file-edit.ts';
import { planStatusWords, stepStatusWords } from '../../console/words.ts';

const CLI = 'npx navigator plan';

export interface PlanSettled {
  view: PlanStatusView | null;
  closed: Settled['closed'];
}

/**
 * Polls until the plan needs a person (review, a step awaiting approval) or ends. With
 * `untilClosed` only the end counts.
 */
export async function settlePlan(
  plan: PlanHandle,
  opts: {
    untilClosed?: boolean;
    timeoutMs?: number;
    onView?: (v: PlanStatusView) => void;
    onProgress?: (events: ProgressEvent[]) => void;
  } = {},
): Promise<PlanSettled> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    const closed = await closedState(plan.workflow);
    const view = await plan.status().catch(() => null);
    if (view) opts.onView?.(view);
    if (opts.onProgress) {
      const progress = await plan.progress().catch(() => null);
      if (progress) opts.onProgress(progress.events);
    }
    if (closed) return { view, closed };
    const needsPerson =
      view && (view.status === 'review' || view.approvals.length > 0 || (view.questions ?? []).length > 0);
    if (!opts.untilClosed && needsPerson) return { view, closed: null };
    if (Date.now() > deadline) return { view, closed: null };
    await new Promise((r) => setTimeout(r, 250));
  }
}

const STATUS_MARK: Record<string, string> = {
  completed: pc.green('✔'),
  failed: pc.red('✘'),
  skipped: pc.dim('–'),
  blocked: pc.yellow('⊘'),
  running: pc.cyan('▶'),
  awaiting_approval: pc.yellow('?'),
  awaiting_answer: pc.yellow('?'),
  ready: '·',
  pending: '·',
};

const short = (v: unknown, n = 100): string => {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > n ? `${s.slice(0, n - 3)}...` : s;
};

/** Args or a result on one line: as JSON, but a map holding a text of several lines (a file) as its fields, the text by its line count, not as escaped JSON. */
const shortValue = (v: unknown, n = 100): string => {
  if (
    v === null ||
    typeof v !== 'object' ||
    Array.isArray(v) ||
    !Object.values(v).some((x) => typeof x === 'string' && x.includes('\n'))
  )
    return short(v, n);
  const text = Object.entries(v)
    .map(
      ([k, x]) =>
        `${k}: ${typeof x === 'string' && x.includes('\n') ? `${x.replace(/\n$/, '').split('\n').length} lines` : typeof x === 'string' ? x : short(x, 40)}`,
    )
    .join(', ');
  return text.length > n ? `${text.slice(0, n - 3)}...` : text;
};

/** What a step does, on one line: its tool and args, agent and input, question, or computed expression. */
function stepWhat(step: Step, full: boolean): string {
  const n = full ? 400 : 100;
  if (step.ask)
    return `ask: ${questionText(step)} (answer: ${short(resolvedQuestion(step)?.schema ?? step.ask.schema, n)})`;
  if (step.compute !== undefined) return `compute: ${expressionText(step.compute)}`;
  if (step.tool) return `${step.tool} ${shortValue(step.args ?? {}, n)}`;
  return `agent ${step.agent} ${short(step.input ?? {}, n)}`;
}

function stepLines(step: Step, index: number, full: boolean): string[] {
  const what = stepWhat(step, full);
  const flags = [
    step.requiresApproval ? pc.yellow('requires approval') : '',
    step.critical ? '' : 'non-critical',
    step.retry ? `max ${step.retry.maxAttempts} attempts` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const lines = [
    `${String(index + 1).padStart(2)}. ${STATUS_MARK[step.status] ?? ' '} ${pc.bold(step.id)}  ${step.description}`,
    `      ${what}`,
  ];
  if (step.when !== undefined) lines.push(`      when: ${step.when}`);
  if (step.forEach !== undefined)
    lines.push(
      `      for each item of: ${step.forEach}${step.maxItems !== undefined ? ` (at most ${step.maxItems})` : ''}`,
    );
  // a computed question shows what it computed in its text (above)
  if (step.resolved && !resolvedQuestion(step)) lines.push(`      computed: ${short(step.resolved, full ? 400 : 100)}`);
  if (step.dependsOn.length) lines.push(`      depends on: ${step.dependsOn.join(', ')}`);
  if (flags) lines.push(`      ${flags}`);
  if (step.status !== 'pending')
    lines.push(`      ${stepStatusWords(step.status)}${step.reason ? `: ${step.reason}` : ''}${resultText(step)}`);
  lines.push(...failedAttemptLines(step.result?.failedAttempts, '        '));
  return lines;
}

function resultText(step: Step): string {
  const r = step.result;
  if (!r) return '';
  if (r.ok && step.ask) return ` → answered ${short(r.value)}${step.answeredBy ? ` by ${step.answeredBy}` : ''}`;
  return r.ok
    ? ` → ${shortValue(r.value)} (${r.attempts} attempt(s), ${r.duration} ms)`
    : ` → ${r.error} (${r.attempts} attempt(s))`;
}

/** The review box: the plan as a person reviews it, with the commands to go on. */
export function renderPlan(view: PlanStatusView, opts: { full?: boolean } = {}): string {
  const plan = view.plan;
  const id = view.planId;
  const bar = '─'.repeat(72);
  const lines = [
    `┌${bar}`,
    `│ Plan ${pc.bold(id)} · version ${view.version} · ${pc.bold(headline(view))} · agent ${view.agent}`,
  ];
  if (plan?.estimatedDuration !== undefined) lines.push(`│ estimated duration: ${plan.estimatedDuration} s`);
  if (plan?.params)
    lines.push(
      `│ params: ${Object.entries(plan.params)
        .map(([k, p]) => `${k} = ${short(p.value, 60)}`)
        .join(', ')}`,
    );
  lines.push(`├${bar}`);
  if (!plan) lines.push('│ (no plan yet: the planner is working)');
  plan?.steps.forEach((s, i) => lines.push(...stepLines(s, i, opts.full ?? false).map((l) => `│ ${l}`)));
  if (view.error) lines.push(`├${bar}`, `│ ${pc.red('error')}: ${view.error}`);
  if (view.summary && view.status !== 'review') {
    const c = view.summary.counts;
    lines.push(
      `├${bar}`,
      `│ ${Object.entries(c)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${stepStatusWords(k as Step['status'])}`)
        .join(', ')}`,
    );
  }
  const records = view.approvalRecords ?? [];
  if (records.length) lines.push(`├${bar}`, '│ Approvals', ...records.map((r) => `│  ${stepApprovalLine(r)}`));
  lines.push(`└${bar}`);
  lines.push(...nextCommands(view));
  return lines.join('\n');
}

function nextCommands(view: PlanStatusView): string[] {
  const id = view.planId;
  if (view.status === 'review') {
    return [
      `  approve:     ${CLI} approve ${id}`,
      `  edit a step: ${CLI} edit ${id} STEP --args '<JSON>' [--description TEXT]`,
      `  other edits: ${CLI} skip|remove ${id} STEP; ${CLI} add ${id} '<STEP JSON>'; ${CLI} regenerate ${id} --feedback TEXT`,
      `  cancel:      ${CLI} cancel ${id}`,
    ];
  }
  // the whole args a person decides on, never cut short
  const lines = view.approvals.flatMap((a) => {
    const item = a.item === null ? '' : ` --item ${a.item}`;
    // a step whose tool names approvers is decided only with one of their roles
    const role = a.approvers?.length
      ? ` --role ${a.approvers.length === 1 ? a.approvers[0] : `${a.approvers.join('|')}`}`
      : '';
    return [
      `  ${pc.yellow('waiting for approval')}: ${a.stepId}${a.item === null ? '' : ` item ${a.item}`} (${a.tool ?? '?'})${a.approvers?.length ? `, for ${a.approvers.join(' or ')}` : ''}${a.deadline ? `, deadline ${a.deadline} (then ${a.onTimeout})` : ''}`,
      ...argsLines(a.args, view.plan?.steps ?? []).map((l) => `      ${l}`),
      ...warningLines(view.plan, a.stepId),
      // bound to the args just shown: refused if the step waits with other args when the command runs
      `    approve: ${CLI} approve-step ${id} ${a.stepId}${item} --args-hash ${valueHash(a.args)} --by NAME${role} [--note TEXT]`,
      `    deny:    ${CLI} deny-step ${id} ${a.stepId}${item} --by NAME${role} --reason TEXT`,
    ];
  });
  for (const q of view.questions ?? []) {
    lines.push(
      `  ${pc.yellow('waiting for an answer')}: ${q.stepId}: ${q.question} (JSON matching ${short(q.schema)})`,
      `    answer: ${CLI} answer ${id} ${q.stepId} '<JSON>'`,
    );
  }
  lines.push(`  follow: ${CLI} watch ${id}   audit: ${CLI} audit ${id}`);
  return lines;
}

/**
 * The plan's status for a person: a running plan at a step that needs someone says who it
 * waits for ("waiting for finance's approval"), not `running`; the rest in words.
 */
export function headline(view: PlanStatusView): string {
  if (view.status === 'running' && view.approvals.length) {
    const roles = [...new Set(view.approvals.flatMap((a) => a.approvers ?? []))];
    return roles.length ? `waiting for ${roles.map((r) => `${r}'s`).join(' or ')} approval` : 'waiting for approval';
  }
  if (view.status === 'running' && (view.questions ?? []).length) return 'waiting for an answer';
  return planStatusWords(view.status);
}

/**
 * A waiting step's args: a file write (`path` and `content`) as the file's new text, or as
 * a diff against what a completed step of the plan read from that path; other args whole
 * as JSON (nothing cut: a person decides on them).
 */
export function argsLines(args: Json, steps: readonly Step[]): string[] {
  const edit = fileEditOf(args, steps);
  if (!edit) return wholeJson(args);
  const { path, content, others, changes } = edit;
  const head = [`path: ${path}`, ...(Object.keys(others).length ? wholeJson(others) : [])];
  if (!changes)
    return [
      ...head,
      'new content:',
      ...content
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => `  ${l}`),
    ];
  if (changes.every((c) => c.kind === 'same')) return [...head, 'content: the same as now'];
  const sign = {
    same: (l: string) => `  ${l}`,
    add: (l: string) => pc.green(`+ ${l}`),
    del: (l: string) => pc.red(`- ${l}`),
  };
  return [...head, 'changes:', ...changes.map((c) => sign[c.kind](c.line))];
}

/** A warning for the person about to approve a step whose goal is already blocked (none otherwise). */
function warningLines(plan: Plan | null, stepId: string): string[] {
  const warning = plan && blockedAfterWarning(plan, stepId);
  return warning ? [`    ${pc.yellow('warning')}: ${warning}`] : [];
}

/**
 * How a plan ended, said once: `plan failed: REASON`. The workflow's own failure message
 * often says it already ("plan failed: ...", "plan cancelled: ..."): then it stands alone.
 */
export function closedLine(closed: NonNullable<Settled['closed']>): string {
  const head = `plan ${closed.status.toLowerCase()}`;
  if (!closed.failure) return head;
  return /^plan [a-z_]+: /.test(closed.failure) ? closed.failure : `${head}: ${closed.failure}`;
}

/** One line per change of the checklist while watching. */
export function checklistLine(view: PlanStatusView): string {
  const steps = view.plan?.steps ?? [];
  return `${view.status}: ${steps.map((s) => `${s.id} ${STATUS_MARK[s.status] ?? s.status}`).join('  ')}`;
}

/** Pretty JSON, every line of it. */
function wholeJson(v: unknown): string[] {
  return (JSON.stringify(v, null, 2) ?? 'null').split('\n');
}

/**
 * How a plan ended, in words a person can act on: which steps failed, were denied or
 * blocked, and why. The exit code says the same: 0 completed, 3 completed with failures
 * (something was not done), 1 failed or cancelled.
 */
export function endState(
  view: PlanStatusView | null,
  closed: NonNullable<Settled['closed']>,
): { lines: string[]; exitCode: number } {
  const status = view?.status;
  if (!view?.plan || (status !== 'completed' && status !== 'completed_with_failures'))
    return { lines: [closedLine(closed)], exitCode: closed.failure ? 1 : 0 };
  const steps = view.plan.steps;
  const done = steps.filter((s) => s.status === 'completed').length;
  if (status === 'completed')
    return { lines: [`plan completed: ${done} of ${steps.length} step(s) done${skippedNote(steps)}`], exitCode: 0 };
  const lines = [`plan ${pc.yellow('completed with failures')}: ${done} of ${steps.length} step(s) done; not done:`];
  for (const s of steps) {
    if (s.status === 'failed') lines.push(`  ${s.id} failed: ${s.result?.error ?? s.reason ?? 'failed'}`);
    else if (s.status === 'skipped' && s.skippedBy === 'denial') lines.push(`  ${s.id} ${s.reason ?? 'denied'}`);
    else if (s.status === 'blocked') lines.push(`  ${s.id} blocked${s.reason ? `: ${s.reason}` : ''}`);
  }
  return { lines, exitCode: 3 };
}

function skippedNote(steps: Step[]): string {
  const skipped = steps.filter((s) => s.status === 'skipped');
  return skipped.length
    ? ` (skipped: ${skipped.map((s) => `${s.id}${s.reason ? `, ${s.reason}` : ''}`).join('; ')})`
    : '';
}
