/**
 * Reading a mission's state from the CLI: waiting until it settles, and printing what it
 * waits for with the exact commands to go on.
 */
import { ActivityFailure, ChildWorkflowFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { type MissionHandle, missionOf } from '../../client/mission/client.ts';
import type { LedgerEntry, StatusView } from '../../workflows/mission/contract.ts';
import { isBareWord } from '../input.ts';
import { valueHash } from '../../history/hash.ts';
import { failedAttemptLines } from '../attempts-view.ts';
import { effectApprovalLine } from '../approval-view.ts';
import { ledgerResultText } from '../../client/mission/text.ts';

export { ledgerResultText };
import { batchTotal, doneSoFar } from '../../console/words.ts';

const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT', 'CONTINUED_AS_NEW']);

export interface Settled {
  status: StatusView | null;
  /** set once the workflow has closed */
  closed: { status: string; result?: unknown; failure?: string } | null;
}

/**
 * The mission waits for a person. Only then does following stop before the workflow
 * closes: a status of failed or completed is read a moment before the close, and
 * stopping there lost the reason and the exit code.
 */
export const parked = (status: StatusView | null): boolean => status?.status === 'waiting';

/** Polls until the mission waits or ends (or `timeoutMs` passes). */
export async function settle(
  handle: MissionHandle | WorkflowHandle,
  opts: { untilClosed?: boolean; timeoutMs?: number; onStatus?: (s: StatusView) => void } = {},
): Promise<Settled> {
  const mission = missionOf(handle);
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const closed = await closedState(mission.workflow);
    const status = await mission.status().catch(() => null);
    if (status) opts.onStatus?.(status);
    if (closed) return { status, closed };
    if (!opts.untilClosed && parked(status)) return { status, closed: null };
    if (Date.now() > deadline) return { status, closed: null };
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** How the workflow ended (result or failure message), or null while it runs or continues as new. */
export async function closedState(handle: WorkflowHandle): Promise<Settled['closed']> {
  const d = await handle.describe();
  if (!CLOSED.has(d.status.name) || d.status.name === 'CONTINUED_AS_NEW') return null;
  try {
    return { status: d.status.name, result: await handle.result() };
  } catch (err) {
    return { status: d.status.name, failure: reasonOf(err instanceof WorkflowFailedError ? err.cause : err) };
  }
}

/**
 * Why a workflow failed, in words: through the wrappers ("Activity task failed", "Child
 * Workflow execution failed") to the failure that says what went wrong.
 */
export function reasonOf(err: unknown): string {
  let e = err;
  while ((e instanceof ActivityFailure || e instanceof ChildWorkflowFailure) && e.cause) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

const CLI = 'npx navigator';

/**
 * One tool call of the ledger as a line (`navigator ledger` and the demos):
 * `#SEQ pass N TOOL [CLASS] task T attempts N via ACTIVITY → RESULT`, then one indented
 * line for each attempt that failed before the last (why it was retried). `maxResult` cuts
 * a long result for a summary, marked with `…`; the ledger command shows it whole.
 */
export function ledgerLine(e: LedgerEntry, maxResult = Infinity): string {
  const result = ledgerResultText(e);
  const shown = result.length > maxResult ? `${result.slice(0, maxResult)}…` : result;
  const outcome = e.status === 'failed' ? `failed: ${e.error}` : e.status === 'running' ? 'running' : shown;
  const line = `#${e.seq} pass ${e.pass} ${e.tool} [${e.sideEffect}]${e.taskId ? ` task ${e.taskId}` : ''} attempts ${e.attempts} via ${e.activity} → ${outcome}`;
  return [line, ...failedAttemptLines(e.failedAttempts, '    ')].join('\n');
}

/** The calls that were retried, with why (`navigator status`); none when nothing was. */
export function retriedLines(ledger: readonly LedgerEntry[]): string[] {
  const retried = ledger.filter((e) => e.failedAttempts?.length);
  if (!retried.length) return [];
  return [
    'Retried:',
    ...retried.flatMap((e) => [
      `  #${e.seq} ${e.tool}${e.taskId ? ` (task ${e.taskId})` : ''}: ${e.status} after ${e.attempts} attempts`,
      ...failedAttemptLines(e.failedAttempts, '    '),
    ]),
  ];
}

/** The effects that ran but whose result could not be kept (too large, the store down): each ran once. */
export function notKeptLines(ledger: readonly LedgerEntry[]): string[] {
  const lost = ledger.filter((e) => e.unavailable);
  if (!lost.length) return [];
  return [
    'Results not kept (each call ran once and will not run again):',
    ...lost.map((e) => `  #${e.seq} ${e.tool}${e.taskId ? ` (task ${e.taskId})` : ''}: ${e.unavailable!.message}`),
  ];
}

/** A value as typed on the command line: a bare word when it is one, else quoted JSON. */
const valueWord = (v: unknown): string => (typeof v === 'string' && isBareWord(v) ? v : `'${JSON.stringify(v)}'`);

/** The status line, what the mission waits for, and the commands to go on. */
export function describeSettled(id: string, s: Settled): string {
  const lines: string[] = [];
  if (s.closed) {
    lines.push(`Mission ${id}: ${s.closed.status.toLowerCase()}`);
    if (s.closed.failure) lines.push(`  reason: ${s.closed.failure}`);
    else lines.push(`  result: ${JSON.stringify(s.closed.result)}`);
  } else if (s.status) {
    lines.push(
      `Mission ${id}: ${s.status.status.replace(/_/g, ' ')} after ${s.status.passes} pass${s.status.passes === 1 ? '' : 'es'}, ${doneSoFar(s.status)}`,
    );
    if (s.status.error) lines.push(`  reason: ${s.status.error}`);
    const p = s.status.pending;
    if (p) {
      const allowed = p.allowed ? ` (allowed: ${p.allowed.map((v) => JSON.stringify(v)).join(', ')})` : '';
      lines.push(`  waiting for ${p.key}${allowed}${p.deadline ? `, deadline ${p.deadline}` : ''}`);
      lines.push(
        `  approve:  ${CLI} approve ${id}`,
        `  reject:   ${CLI} reject ${id}`,
        `  decide:   ${CLI} decide ${id} ${p.key} ${p.allowed?.length ? valueWord(p.allowed[0]) : "'<JSON value>'"}`,
      );
    }
    const waiting = s.status.effectApprovals ?? [];
    // asked together in one pmap: the whole set waits at once, decided one by one
    if (waiting.length > 1)
      lines.push(
        `  ${waiting.length} effects wait for approval together${batchTotal(waiting)}: each has its own approve/deny`,
      );
    for (const e of waiting) {
      // the whole args: a person decides on them, so nothing is cut
      lines.push(
        `  effect waiting for approval: ${e.tool}${e.taskId ? ` (task ${e.taskId})` : ''}${e.deadline ? `, deadline ${e.deadline}` : ''}`,
      );
      lines.push(`    args: ${JSON.stringify(e.args, null, 2).replaceAll('\n', '\n    ')}`);
      if (e.call) lines.push(`    asked for at line ${e.call.line} of the program: ${e.call.text}`);
      // bound to the args just shown: refused if the task asks again with other args before the command runs
      const shown = `--args-hash ${valueHash(e.args)}`;
      lines.push(
        `    approve:  ${CLI} effect approve ${id} ${e.key} ${shown}`,
        `    deny:     ${CLI} effect deny ${id} ${e.key} ${shown} --reason '<why>'`,
      );
    }
  } else {
    lines.push(`Mission ${id}: no status yet (is a worker running? \`${CLI} worker\`)`);
  }
  // who approved or denied which effect, open or closed
  for (const a of s.status?.approvals ?? []) lines.push(`  ${effectApprovalLine(a)}`);
  lines.push(
    `  inspect:  ${CLI} status|journal|progress|ledger|history ${id}`,
    `  follow:   ${CLI} watch ${id}`,
    `  audit:    ${CLI} audit ${id}`,
  );
  return lines.join('\n');
}
