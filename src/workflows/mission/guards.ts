/**
 * Input checks that run inside the workflow sandbox. The zod schemas in contract.ts are
 * the definition (types are derived from them, and clients and activities validate with
 * them); the workflow checks the same shapes by hand because every cached workflow
 * instantiates its bundle's modules, and zod would cost about 1 MB per waiting mission.
 * test/workflows/guards.property.test.ts checks that these guards and the schemas agree.
 */
import type { ApprovalVerdict, CarriedState, DecisionVerdict, Json, ParsedMissionInput } from './contract.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_TOOL_MS } from '../../kernel/contract.ts';
import type { Problem } from '../../kernel/schemas.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** The kinds of problem the guards report (zod's names for the same checks). */
export type GuardCode = 'invalid_type' | 'invalid_value' | 'unrecognized_key' | 'missing' | 'too_small';

type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPlain = (v: Obj): boolean => [Object.prototype, null].includes(Object.getPrototypeOf(v));
export const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** JSON data, as the contract's JsonValue accepts it. */
export function isJson(v: unknown, depth = 0): v is Json {
  if (depth > 200) return false;
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  if (isObj(v) && isPlain(v)) return Object.values(v).every((x) => isJson(x, depth + 1));
  return false;
}

export class Problems {
  readonly list: Problem[] = [];
  add(path: string, message: string, code: GuardCode = 'invalid_type'): void {
    this.list.push({ code, path, message });
  }
  check<T>(value: T): Checked<T> {
    return this.list.length ? { ok: false, problems: this.list } : { ok: true, value };
  }
}

function nonEmptyString(p: Problems, path: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0) p.add(path, 'expected a non-empty string');
  return v as string;
}

function optionalString(p: Problems, path: string, v: unknown): void {
  if (v !== undefined && typeof v !== 'string') p.add(path, 'expected a string');
}

function optionalPositive(p: Problems, path: string, v: unknown, fallback?: number): number | undefined {
  if (v === undefined) return fallback;
  if (!isPositiveInt(v)) p.add(path, 'expected a positive integer');
  return v as number;
}

function object(p: Problems, path: string, v: unknown): Obj {
  if (v === undefined) return {};
  if (!isObj(v)) {
    p.add(path, 'expected an object');
    return {};
  }
  return v;
}

// ---------------------------------------------------------------- messages

export function checkDecision(raw: unknown): Checked<DecisionVerdict> {
  const p = new Problems();
  const d = isObj(raw) ? raw : (p.add('decision', 'expected an object'), {});
  const key = nonEmptyString(p, 'key', d.key);
  if (!isJson(d.value)) p.add('value', 'expected JSON data');
  optionalString(p, 'by', d.by);
  optionalString(p, 'note', d.note);
  optionalString(p, 'role', d.role);
  const out: DecisionVerdict = { key, value: d.value as Json };
  if (d.by !== undefined) out.by = d.by as string;
  if (d.note !== undefined) out.note = d.note as string;
  if (d.role !== undefined) out.role = d.role as string;
  return p.check(out);
}

export function checkJournalWrite(raw: unknown): Checked<{ key: string; value: Json }> {
  const p = new Problems();
  const w = isObj(raw) ? raw : (p.add('write', 'expected an object'), {});
  const key = nonEmptyString(p, 'key', w.key);
  if (!isJson(w.value)) p.add('value', 'expected JSON data');
  return p.check({ key, value: w.value as Json });
}

export function checkTaskReset(raw: unknown): Checked<{ key: string }> {
  const p = new Problems();
  const r = isObj(raw) ? raw : (p.add('reset', 'expected an object'), {});
  return p.check({ key: nonEmptyString(p, 'key', r.key) });
}

export function checkCancel(raw: unknown): Checked<{ reason: string }> {
  const p = new Problems();
  const c = isObj(raw) ? raw : (p.add('cancel', 'expected an object'), {});
  optionalString(p, 'reason', c.reason);
  return p.check({ reason: (c.reason as string | undefined) ?? 'cancelled' });
}

export function checkApprovalVerdict(raw: unknown): Checked<ApprovalVerdict> {
  const p = new Problems();
  const v = isObj(raw) ? raw : (p.add('verdict', 'expected an object'), {});
  const key = nonEmptyString(p, 'key', v.key);
  if (typeof v.approved !== 'boolean') p.add('approved', 'expected true or false');
  optionalString(p, 'by', v.by);
  optionalString(p, 'note', v.note);
  optionalString(p, 'argsHash', v.argsHash);
  optionalString(p, 'role', v.role);
  const out: ApprovalVerdict = { key, approved: v.approved as boolean };
  for (const field of ['by', 'note', 'argsHash', 'role'] as const)
    if (v[field] !== undefined) out[field] = v[field] as string;
  return p.check(out);
}

// ---------------------------------------------------------------- mission input

/** MissionInput with the same defaults as the zod schema. */
export function checkMissionInput(raw: unknown): Checked<ParsedMissionInput> {
  const p = new Problems();
  const m = isObj(raw) ? raw : (p.add('input', 'expected an object'), {});
  const agent = nonEmptyString(p, 'agent', m.agent);
  const input = m.input === undefined ? {} : m.input;
  if (!isJson(input)) p.add('input', 'expected JSON data');
  checkJournal(p, m.journal);
  if (m.runId !== undefined && (typeof m.runId !== 'string' || m.runId.length === 0))
    p.add('runId', 'expected a non-empty string');
  if (m.carried !== undefined) checkCarried(p, m.carried);
  const from = m.resumedFrom;
  if (
    from !== undefined &&
    (!isObj(from) ||
      typeof from.workflowId !== 'string' ||
      !from.workflowId ||
      typeof from.runId !== 'string' ||
      !from.runId)
  ) {
    p.add('resumedFrom', 'expected {workflowId, runId} of the mission this one restarts');
  }
  const options = checkOptions(p, m.options);
  const out = { agent, input: input as Json, options } as ParsedMissionInput;
  if (m.journal !== undefined) out.journal = m.journal as ParsedMissionInput['journal'];
  if (m.runId !== undefined) out.runId = m.runId as string;
  if (m.carried !== undefined) out.carried = m.carried as CarriedState;
  if (from !== undefined) out.resumedFrom = from as ParsedMissionInput['resumedFrom'];
  return p.check(out);
}

function checkJournal(p: Problems, j: unknown): void {
  if (j === undefined) return;
  if (Array.isArray(j)) {
    j.forEach((e, i) => {
      if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string' || e[0].length === 0 || !isJson(e[1])) {
        p.add(`journal.${i}`, 'expected a [key, value] pair');
      }
    });
  } else if (!isObj(j) || !isJson(j)) {
    p.add('journal', 'expected [key, value] pairs or an object of JSON values');
  }
}

function checkOptions(p: Problems, raw: unknown): ParsedMissionInput['options'] {
  const o = object(p, 'options', raw);
  const approval = object(p, 'options.approval', o.approval);
  const budgets = object(p, 'options.budgets', o.budgets);
  const timeouts = object(p, 'options.timeouts', o.timeouts);
  if (approval.onTimeout !== undefined && approval.onTimeout !== 'expiry_value' && approval.onTimeout !== 'fail') {
    p.add('options.approval.onTimeout', 'expected "expiry_value" or "fail"', 'invalid_value');
  }
  const attribute = o.statusSearchAttribute;
  if (attribute !== undefined && (typeof attribute !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(attribute))) {
    p.add('options.statusSearchAttribute', 'must be a search attribute name', 'invalid_value');
  }
  const strip = <T extends Obj>(x: T) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as T;
  return {
    maxPasses: optionalPositive(p, 'options.maxPasses', o.maxPasses, 5)!,
    approval: strip({
      timeoutMs: optionalPositive(p, 'options.approval.timeoutMs', approval.timeoutMs),
      onTimeout: approval.onTimeout as 'expiry_value' | 'fail' | undefined,
    }),
    budgets: strip({
      wallClockMs: optionalPositive(p, 'options.budgets.wallClockMs', budgets.wallClockMs),
      passes: optionalPositive(p, 'options.budgets.passes', budgets.passes),
      toolCalls: optionalPositive(p, 'options.budgets.toolCalls', budgets.toolCalls),
      tokens: optionalPositive(p, 'options.budgets.tokens', budgets.tokens),
    }),
    continueAsNewAfterEvents: optionalPositive(
      p,
      'options.continueAsNewAfterEvents',
      o.continueAsNewAfterEvents,
      2000,
    )!,
    timeouts: {
      passMs: optionalPositive(p, 'options.timeouts.passMs', timeouts.passMs, 60 * 60_000)!,
      toolMs: optionalPositive(p, 'options.timeouts.toolMs', timeouts.toolMs, DEFAULT_TOOL_MS)!,
      heartbeatMs: optionalPositive(p, 'options.timeouts.heartbeatMs', timeouts.heartbeatMs, DEFAULT_HEARTBEAT_MS)!,
    },
    ...(attribute !== undefined ? { statusSearchAttribute: attribute as string } : {}),
  };
}

/** Carried state is written by the workflow itself; a shallow check catches tampering. */
function checkCarried(p: Problems, c: unknown): void {
  if (!isObj(c)) return p.add('carried', 'expected an object');
  if (!Array.isArray(c.journal) || !Array.isArray(c.ledger) || !isObj(c.summaries) || !Array.isArray(c.chain)) {
    p.add('carried', 'expected the state of an earlier run (journal, ledger, summaries, chain)');
  }
}
