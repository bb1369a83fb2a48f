/**
 * Statuses in words people read, for the console and the CLI: `awaiting_approval` is
 * "waiting for approval", `budget_exhausted` "stopped: its budget ran out". The workflows
 * keep their identifiers (history, search attributes, the API); only what is shown changes.
 */
import type { PlanStatus, StepStatus } from '../plans/schema.ts';
import type { z } from 'zod';
import type { Json, MissionStatus, StatusView } from '../workflows/mission/contract.ts';

type Shape = Record<string, z.ZodType>;

const STEP: Record<StepStatus, string> = {
  pending: 'not started',
  blocked: 'blocked',
  ready: 'ready to run',
  running: 'running',
  awaiting_approval: 'waiting for approval',
  awaiting_answer: 'waiting for an answer',
  completed: 'completed',
  failed: 'failed',
  skipped: 'skipped',
};

const PLAN: Record<PlanStatus, string> = {
  planning: 'being planned',
  review: 'waiting for review',
  running: 'running',
  completed: 'completed',
  completed_with_failures: 'completed, some steps failed',
  failed: 'failed',
  cancelled: 'cancelled',
};

const MISSION: Record<MissionStatus, string> = {
  starting: 'starting',
  running: 'running',
  waiting: 'waiting for you',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  budget_exhausted: 'stopped: its budget ran out',
};

/** A plan step's status in words. */
export const stepStatusWords = (s: StepStatus): string => STEP[s] ?? s.replace(/_/g, ' ');

/** A plan's status in words. */
export const planStatusWords = (s: PlanStatus): string => PLAN[s] ?? s.replace(/_/g, ' ');

/** A mission's status in words (a waiting one says for what when `status` is given). */
export function statusWords(s: MissionStatus, status?: Pick<StatusView, 'pending' | 'effectApprovals'>): string {
  if (s === 'waiting' && status && !status.pending && (status.effectApprovals?.length ?? 0) === 0) return 'waiting';
  return MISSION[s] ?? String(s).replace(/_/g, ' ');
}

/** The unit a field's description names: "amount in USD" → USD, "timeout in seconds" → seconds. */
export function unitOf(description: string | undefined): string | null {
  const m = /\bin ([A-Z]{3}|[a-z]+)\s*$/.exec(description ?? '');
  return m ? m[1]! : null;
}

/** A 3-letter currency code, as a `currency` field or a description's unit names it. */
const CURRENCY = /^[A-Za-z]{3}$/;
const MONEY_FIELD = /^(amount|total|price|sum|value)(_\w+)?$/i;

/**
 * The money a call's args ask for, when they name it: a number whose description names a
 * currency ("amount in USD"), or a money field (`amount`, `total`, ...) beside a `currency`.
 */
export function moneyOf(
  schema: z.ZodObject | undefined,
  args: Json,
): { amount: number; currency: string; field: string; currencyField?: string } | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const shape: Shape = (schema?.shape as Shape | undefined) ?? {};
  const currency =
    typeof args.currency === 'string' && CURRENCY.test(args.currency) ? args.currency.toUpperCase() : null;
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'number') continue;
    const unit = unitOf(shape[k]?.description);
    if (unit && /^[A-Z]{3}$/.test(unit)) return { amount: v, currency: unit, field: k };
    if (currency && MONEY_FIELD.test(k)) return { amount: v, currency, field: k, currencyField: 'currency' };
  }
  return null;
}

/**
 * What the mission did so far: its committed tasks, and the effects it ran (a pass commits
 * its tasks when it ends, so a pass that paid twice and waits for a third approval has no
 * task in the journal yet, but two effects done).
 */
export function doneSoFar(status: Pick<StatusView, 'journalSize' | 'effectsDone'>): string {
  const ran = (status.effectsDone ?? []).filter((e) => e.status === 'completed').length;
  const tasks = `${status.journalSize} task${status.journalSize === 1 ? '' : 's'} committed`;
  return ran ? `${tasks}, ${ran} effect${ran === 1 ? '' : 's'} done` : tasks;
}

/** The money of calls waiting together, per currency: ` (17,200 EUR in all)`, or nothing when they name none. */
export function batchTotal(
  calls: ReadonlyArray<{ args: Json }>,
  schemaOf: (i: number) => z.ZodObject | undefined = () => undefined,
): string {
  const sums = new Map<string, number>();
  calls.forEach((c, i) => {
    const m = moneyOf(schemaOf(i), c.args);
    if (m) sums.set(m.currency, (sums.get(m.currency) ?? 0) + m.amount);
  });
  return sums.size
    ? ` (${[...sums].map(([cur, n]) => `${n.toLocaleString('en-US', { maximumFractionDigits: 20 })} ${cur}`).join(', ')} in all)`
    : '';
}
