/**
 * A person's approval of one effect before it runs: a mission's external call (a tool its
 * agent marks as needing approval) waits here the way a plan step does. What waits, each
 * verdict and who gave it are workflow state, so they survive a killed worker and are
 * rebuilt by replay; each verdict is also kept as a record (who, when, note, the args it
 * approved and their hash) for `status`, the console, the ledger and the audit.
 *
 * An approval is bound to the exact args it was given for: the same task asked again
 * with other args waits for a new one. Workflow code only (deterministic, no zod).
 */
import type { Json } from '../kernel/contract.ts';
import type { ApprovalRecord, ApprovalVerdict, PendingApproval } from './contract.ts';
import { jsonEquals } from './json-patch.ts';
import { waitUntil } from './lifecycle.ts';

export type GateOutcome = { kind: 'approved' } | { kind: 'denied'; message: string } | { kind: 'expired' } | { kind: 'stopped' };

export class ApprovalGate {
  readonly pending = new Map<string, PendingApproval>();
  private readonly verdicts = new Map<string, ApprovalVerdict>();

  constructor(public records: ApprovalRecord[] = []) {}

  /** An approval already given for this key and exactly these args (an earlier pass's). */
  approved(key: string, args: Json): boolean {
    return this.records.some((r) => r.key === key && r.outcome === 'approved' && jsonEquals(r.args, args));
  }

  /** Why a verdict cannot be taken now, or null (the update's validator). */
  problem(v: ApprovalVerdict): string | null {
    const waiting = this.pending.get(v.key);
    if (!waiting) {
      const keys = [...this.pending.keys()];
      return `no effect ${JSON.stringify(v.key)} waits for approval${keys.length ? `; waiting: ${keys.join(', ')}` : ''}`;
    }
    if (this.verdicts.has(v.key)) return `effect ${v.key} already has a verdict`;
    return null;
  }

  /** Takes a verdict (after {@link problem} said null). */
  decide(v: ApprovalVerdict): void {
    this.verdicts.set(v.key, v);
  }

  /**
   * Waits for a verdict on `request`, the deadline (`timeoutMs`, null: none) or `stop()`.
   * The verdict, or the deadline passing, is recorded.
   */
  async wait(request: Omit<PendingApproval, 'since' | 'deadline'>, timeoutMs: number | null, stop: () => boolean): Promise<GateOutcome> {
    const now = Date.now();
    this.verdicts.delete(request.key);
    this.pending.set(request.key, { ...request, since: iso(now), deadline: timeoutMs === null ? null : iso(now + timeoutMs) });
    const arrived = () => this.verdicts.has(request.key) || stop();
    await waitUntil(arrived, timeoutMs, `approval deadline of ${request.tool}`);
    this.pending.delete(request.key);
    const verdict = this.verdicts.get(request.key);
    this.verdicts.delete(request.key);
    if (verdict) {
      this.record(request, verdict.approved ? 'approved' : 'denied', verdict);
      if (verdict.approved) return { kind: 'approved' };
      const by = verdict.by ? ` by ${verdict.by}` : '';
      return { kind: 'denied', message: `denied${by}${verdict.note ? `: ${verdict.note}` : ''}` };
    }
    if (stop()) return { kind: 'stopped' };
    this.record(request, 'expired', null);
    return { kind: 'expired' };
  }

  private record(request: Omit<PendingApproval, 'since' | 'deadline'>, outcome: ApprovalRecord['outcome'], v: ApprovalVerdict | null): void {
    this.records.push({
      key: request.key,
      tool: request.tool,
      taskId: request.taskId,
      args: request.args,
      outcome,
      by: v?.by ?? null,
      note: v?.note ?? null,
      argsHash: v?.argsHash ?? null,
      at: iso(Date.now()),
    });
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
