/**
 * A person's approval before something runs: a mission's external call (a tool its agent
 * marks as needing approval) and a plan step that requires approval (or each item of a
 * for-each step) wait here, through one implementation. What waits, each verdict and who
 * gave it are workflow state, so they survive a killed worker and are rebuilt by replay;
 * each verdict is also kept as a record (who, when, note, the args it approved and their
 * hash) for `status`/`plan show`, the console, the ledger and the audit.
 *
 * An approval is bound to the exact args it was given for: the same key asked again
 * with other args waits for a new one. Workflow code only (deterministic, no zod).
 */
import type { Json } from '../kernel/contract.ts';
import { jsonEquals } from '../kernel/json-patch.ts';
import { waitUntil } from './lifecycle.ts';
import { roleProblem } from './approvers.ts';

/** What waits: `key` names it in verdicts (an effect's idempotency key, a step id, `step[2]`). */
export interface GateRequest {
  key: string;
  tool: string | null;
  /** the args exactly as they will run */
  args: Json;
  /** the roles allowed to give a verdict (absent: anyone who may send updates) */
  approvers?: string[];
}

export type Pending<R extends GateRequest> = R & { since: string; deadline: string | null };

/** A verdict or an expired deadline, kept with what it was given for. */
export type RecordedOutcome = 'approved' | 'denied' | 'expired';
export type Recorded<R extends GateRequest> = R & {
  outcome: RecordedOutcome;
  by: string | null;
  note: string | null;
  argsHash: string | null;
  /** the role the verdict was given with (only when one was named) */
  role?: string;
  at: string;
};

/** A person's verdict on one waiting key. */
export interface GateVerdict {
  key: string;
  approved: boolean;
  by?: string | undefined;
  /** a note with an approval, the reason of a denial */
  note?: string | undefined;
  /** the hash of the args the person saw (computed by the client), checked by the audit */
  argsHash?: string | undefined;
  /** the role the person acts with (must be one of the request's approvers when it names them) */
  role?: string | undefined;
}

export type GateOutcome =
  | { kind: 'approved' }
  | { kind: 'denied'; message: string; by: string | null; note: string | null }
  | { kind: 'expired' }
  | { kind: 'stopped' };

export class ApprovalGate<R extends GateRequest> {
  readonly pending = new Map<string, Pending<R>>();
  private readonly verdicts = new Map<string, GateVerdict>();

  /** `noun` names what waits in problems ("effect", "step"). */
  constructor(
    public records: Recorded<R>[] = [],
    private readonly noun = 'effect',
  ) {}

  /** An approval already given for this key and exactly these args (an earlier pass's). */
  approved(key: string, args: Json): boolean {
    return this.records.some((r) => r.key === key && r.outcome === 'approved' && jsonEquals(r.args, args));
  }

  /** Why a verdict cannot be taken now, or null (the update's validator). */
  problem(v: Pick<GateVerdict, 'key' | 'role'>): string | null {
    const waiting = this.pending.get(v.key);
    if (!waiting) {
      const keys = [...this.pending.keys()];
      return `no ${this.noun} ${JSON.stringify(v.key)} waits for approval${keys.length ? `; waiting: ${keys.join(', ')}` : ''}`;
    }
    if (this.verdicts.has(v.key)) return `${this.noun} ${v.key} already has a verdict`;
    return roleProblem(waiting.approvers, v.role, `${this.noun} ${v.key}${waiting.tool ? ` (${waiting.tool})` : ''}`);
  }

  /** Takes a verdict (after {@link problem} said null). */
  decide(v: GateVerdict): void {
    this.verdicts.set(v.key, v);
  }

  /**
   * Waits for a verdict on `request`, the deadline (`timeoutMs`, null: none) or `stop()`.
   * The verdict, or the deadline passing, is recorded. `timer` is the deadline timer's summary.
   */
  async wait(
    request: R,
    timeoutMs: number | null,
    stop: () => boolean,
    timer = `approval deadline of ${request.tool ?? request.key}`,
  ): Promise<GateOutcome> {
    this.open(request, timeoutMs);
    try {
      await waitUntil(this.arrived(request.key, stop), timeoutMs, timer);
    } finally {
      // also when the wait is cancelled (a plan's cancelled scope): nothing waits any more
      this.pending.delete(request.key);
    }
    return this.settle(request, stop);
  }

  /*
   * The three parts of `wait`, for a caller that must await the deadline itself: the order
   * of a workflow's commands follows how many promise steps lie between a verdict and what
   * runs next, and histories recorded before the gate existed were written with the await
   * directly in the plan step (see plan-run.ts awaitApproval).
   */

  /** Starts waiting for a verdict on `request`. */
  open(request: R, timeoutMs: number | null): void {
    const now = Date.now();
    this.verdicts.delete(request.key);
    this.pending.set(request.key, {
      ...request,
      since: iso(now),
      deadline: timeoutMs === null ? null : iso(now + timeoutMs),
    });
  }

  /** The condition a wait for `key` ends on. */
  arrived(key: string, stop: () => boolean): () => boolean {
    return () => this.verdicts.has(key) || stop();
  }

  /** Ends the wait for `request`: what came (recorded), or the deadline (recorded), or stop. */
  settle(request: R, stop: () => boolean): GateOutcome {
    this.pending.delete(request.key);
    const verdict = this.verdicts.get(request.key);
    this.verdicts.delete(request.key);
    if (verdict) {
      this.record(request, verdict.approved ? 'approved' : 'denied', verdict);
      if (verdict.approved) return { kind: 'approved' };
      const by = verdict.by ?? null;
      const note = verdict.note ?? null;
      return { kind: 'denied', message: `denied${by ? ` by ${by}` : ''}${note ? `: ${note}` : ''}`, by, note };
    }
    if (stop()) return { kind: 'stopped' };
    this.record(request, 'expired', null);
    return { kind: 'expired' };
  }

  private record(request: R, outcome: RecordedOutcome, v: GateVerdict | null): void {
    // the role only when one was named: records of old histories keep their shape
    this.records.push({
      ...request,
      outcome,
      by: v?.by ?? null,
      note: v?.note ?? null,
      argsHash: v?.argsHash ?? null,
      ...(v?.role ? { role: v.role } : {}),
      at: iso(Date.now()),
    });
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
