/**
 * One verdict of the approval gate (src/workflows/approval-gate.ts), a mission effect's or a
 * plan step's, as `status`, `ledger`, `plan show` and `plan ledger` print it: when, what,
 * the verdict (or the deadline that passed), who and with which role, their note, and the hash of the args the
 * verdict was for (the audit checks it).
 */
import pc from 'picocolors';
import type { ApprovalRecord } from '../workflows/mission/contract.ts';
import type { StepApprovalRecord } from '../workflows/plan/contract.ts';

type Verdict = Pick<ApprovalRecord, 'outcome' | 'by' | 'note' | 'argsHash' | 'at'> & { role?: string };

function verdictLine(subject: string, r: Verdict): string {
  const verdict = r.outcome === 'expired' ? pc.yellow('no verdict before the deadline') : r.outcome === 'approved' ? pc.green('approved') : pc.red('denied');
  const by = `${r.by ? ` by ${r.by}` : ''}${r.role ? ` as ${r.role}` : ''}`;
  const note = r.note ? `: ${r.note}` : '';
  const hash = r.argsHash ? `, args hash ${r.argsHash}` : '';
  return `${r.at} ${subject} ${verdict}${by}${note}${hash}`;
}

/** A mission effect's verdict: `TIME send_payout (task payout) approved by ana: ok, args hash …`. */
export const effectApprovalLine = (a: ApprovalRecord): string => verdictLine(`${a.tool}${a.taskId ? ` (task ${a.taskId})` : ''}`, a);

/** A plan step's (or item's) verdict: `TIME keep item 2 (delete_thing) denied by bo: still needed`. */
export const stepApprovalLine = (r: StepApprovalRecord): string => verdictLine(`${r.stepId}${r.item === null ? '' : ` item ${r.item}`} (${r.tool ?? '?'})`, r);
