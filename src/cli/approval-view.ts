/**
 * One verdict of the approval gate (src/workflows/approval-gate.ts), a mission effect's or a
 * plan step's, as `status`, `ledger`, `plan show` and `plan ledger` print it: when, what,
 * the verdict (or the deadline that passed), who and with which role, their note, and the hash of the args the
 * verdict was for (the audit checks it).
 */
import pc from 'picocolors';
import type { ApprovalRecord, EffectDone, PendingApproval } from '../workflows/mission/contract.ts';
import { valueHash } from '../history/hash.ts';
import { batchTotal } from '../console/words.ts';
import type { StepApprovalRecord } from '../workflows/plan/contract.ts';

type Verdict = Pick<ApprovalRecord, 'outcome' | 'by' | 'note' | 'argsHash' | 'at'> & { role?: string };

function verdictLine(subject: string, r: Verdict): string {
  const verdict =
    r.outcome === 'expired'
      ? pc.yellow('no verdict before the deadline')
      : r.outcome === 'approved'
        ? pc.green('approved')
        : pc.red('denied');
  const by = `${r.by ? ` by ${r.by}` : ''}${r.role ? ` as ${r.role}` : ''}`;
  const note = r.note ? `: ${r.note}` : '';
  const hash = r.argsHash ? `, args hash ${r.argsHash}` : '';
  return `${r.at} ${subject} ${verdict}${by}${note}${hash}`;
}

/** A mission effect's verdict: `TIME send_payout (task payout) approved by ana: ok, args hash …`. */
export const effectApprovalLine = (a: ApprovalRecord): string =>
  verdictLine(`${a.tool}${a.taskId ? ` (task ${a.taskId})` : ''}`, a);

/** A plan step's (or item's) verdict: `TIME keep item 2 (delete_thing) denied by bo: still needed`. */
export const stepApprovalLine = (r: StepApprovalRecord): string =>
  verdictLine(`${r.stepId}${r.item === null ? '' : ` item ${r.item}`} (${r.tool ?? '?'})`, r);

/**
 * `navigator effect list`: every call waiting now (a batch when several: the program asked
 * for them together), each with its whole args and the commands bound to them, then what
 * the mission already ran and who decided what.
 */
export function effectListText(
  id: string,
  e: { waiting: readonly PendingApproval[]; done: readonly EffectDone[]; verdicts: readonly ApprovalRecord[] },
): string {
  const lines: string[] = [];
  if (!e.waiting.length) lines.push(`Mission ${id}: no effect waits for approval`);
  else if (e.waiting.length === 1) lines.push(`Mission ${id}: 1 effect waits for approval${batchTotal(e.waiting)}`);
  else
    lines.push(
      `Mission ${id}: ${e.waiting.length} effects wait for approval together${batchTotal(e.waiting)}; each is approved or denied on its own`,
    );
  e.waiting.forEach((w, i) => {
    lines.push(
      `  ${e.waiting.length > 1 ? `${i + 1}. ` : ''}${w.tool}${w.taskId ? ` (task ${w.taskId})` : ''}${w.deadline ? `, deadline ${w.deadline}` : ''}`,
    );
    lines.push(...(JSON.stringify(w.args, null, 2) ?? 'null').split('\n').map((l) => `      ${l}`));
    const shown = `--args-hash ${valueHash(w.args)}`;
    lines.push(
      `    approve: npx navigator effect approve ${id} ${w.key} ${shown}`,
      `    deny:    npx navigator effect deny ${id} ${w.key} ${shown} --reason '<why>'`,
    );
  });
  const ran = e.done.filter((d) => d.status !== 'running');
  lines.push(ran.length ? `Done so far (${ran.length}):` : 'Done so far: nothing out in the world yet');
  for (const d of ran)
    lines.push(
      `  ${d.status === 'completed' ? pc.green('done') : pc.red('failed')} ${d.tool}${d.taskId ? ` (task ${d.taskId})` : ''}, pass ${d.pass}`,
    );
  for (const v of e.verdicts) lines.push(`  ${effectApprovalLine(v)}`);
  return lines.join('\n');
}
