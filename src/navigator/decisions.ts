/**
 * External decisions: values a person (or another system) writes into the journal, such
 * as a manager's approval. The contract fixes, for a given agent input, the journal key
 * the decision is written under and the values it may take, so the model, the
 * application, the CLI and the approval signals agree on both.
 *
 * ```ts
 * const managerDecision = defineDecision({
 *   name: 'manager_decision',
 *   description: 'A manager approves or rejects the wire.',
 *   key: (input: { recipient: string; amount: number }) =>
 *     decisionKey('manager_decision', input.recipient, input.amount), // manager_decision_bob_5000
 *   values: z.enum(['approved', 'rejected']),
 *   onApprove: 'The wire is sent; it cannot be called back.', // optional: the console's words for Approve
 *   onReject: 'The hold is released and nothing is sent.',
 * });
 * ```
 *
 * The program reads a decision with a task whose body waits (see {@link renderDecisions}):
 * a miss returns `{:status :waiting ...}` and commits nothing; once the application has
 * written the key, the same task is a hit and returns the decision.
 */
import { z } from 'zod';
import type { Json } from '../lisp/tools.ts';
import { ednString } from '../lisp/printer/edn.ts';
import { DecisionWords } from '../kernel/schemas.ts';
import { zodTypeText } from './schema.ts';
import { Approvers, DefinitionError, problemsOf } from './tool.ts';

/** Journal keys of decisions: letters, digits and `_ . : -`. */
export const DECISION_KEY = /^[A-Za-z0-9_.:-]+$/;

/** `onApprove` / `onReject`: what each does, in a sentence for the person deciding (see DecisionWords). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a spec of any input type is accepted where specs are listed
export interface DecisionSpec<I = any, V extends z.ZodType = z.ZodType> extends DecisionWords {
  /** stable name of the contract, e.g. `manager_decision` */
  name: string;
  description: string;
  /** the journal key for an agent input, e.g. `manager_decision_bob_5000` */
  key: (input: I) => string;
  /** the allowed values */
  values: V;
  /** what the workflow records when nobody decides in time (absent: wait forever) */
  expiry?: { afterMs: number; value: z.output<V> };
  /** the roles allowed to decide it (absent: anyone who may send updates); see docs/security.md */
  approvers?: string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as for DecisionSpec
export interface Decision<I = any, V extends z.ZodType = z.ZodType> extends DecisionSpec<I, V> {
  readonly kind: 'decision';
}

/** A decision contract made concrete for one input. */
export interface ResolvedDecision extends DecisionWords {
  name: string;
  key: string;
  description: string;
  values: z.ZodType;
  approvers?: string[];
}

const DecisionSpecSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be a name of letters, digits, _ and -'),
    description: z.string().trim().min(1, 'must not be empty'),
    key: z.custom<(input: unknown) => string>((v) => typeof v === 'function', {
      error: 'must be a function from the agent input to the journal key',
    }),
    values: z.custom<z.ZodType>((v) => v instanceof z.ZodType, { error: 'must be a zod schema of the allowed values' }),
    expiry: z.object({ afterMs: z.number().int().positive(), value: z.unknown() }).optional(),
    approvers: Approvers.optional(),
  })
  .extend(DecisionWords.shape);

export function defineDecision<I, V extends z.ZodType>(spec: DecisionSpec<I, V>): Decision<I, V> {
  const label = `defineDecision(${typeof spec?.name === 'string' ? JSON.stringify(spec.name) : '?'})`;
  const parsed = DecisionSpecSchema.safeParse(spec);
  if (!parsed.success) throw new DefinitionError(label, problemsOf(parsed.error));
  if (spec.expiry) {
    const v = spec.values.safeParse(spec.expiry.value);
    if (!v.success) throw new DefinitionError(label, problemsOf(v.error, ['expiry', 'value']));
  }
  return { ...spec, kind: 'decision' };
}

/** Joins parts into a key, each lower-cased with runs of other characters as `_`. */
export function decisionKey(...parts: Array<string | number>): string {
  return parts
    .map((p) =>
      String(p)
        .toLowerCase()
        .replace(/[^a-z0-9.]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter(Boolean)
    .join('_');
}

/** The key and schema of a decision for one input; a bad key is a clear error. */
export function resolveDecision(d: Decision, input: unknown): ResolvedDecision {
  const key = d.key(input);
  if (typeof key !== 'string' || !DECISION_KEY.test(key)) {
    throw new DefinitionError(`decision "${d.name}"`, [
      `key(input) returned ${JSON.stringify(key)}; a key is a non-empty string of letters, digits and _ . : - ` +
        '(decisionKey(...) builds one)',
    ]);
  }
  const words = { ...(d.onApprove ? { onApprove: d.onApprove } : {}), ...(d.onReject ? { onReject: d.onReject } : {}) };
  return {
    name: d.name,
    key,
    description: d.description,
    values: d.values,
    ...words,
    ...(d.approvers?.length ? { approvers: [...d.approvers] } : {}),
  };
}

export type DecisionCheck = { ok: true; value: Json } | { ok: false; problems: string[] };

/** Validates a value written for a decision (CLI `decide`, approval signals). */
export function checkDecisionValue(d: Pick<ResolvedDecision, 'values' | 'key'>, value: unknown): DecisionCheck {
  const parsed = d.values.safeParse(value);
  if (!parsed.success) return { ok: false, problems: problemsOf(parsed.error, [d.key]) };
  return { ok: true, value: parsed.data as Json };
}

/** The `{:status :waiting ...}` outcome a program returns while a decision is missing. */
export const waitingForm = (key: string): string => `{:status :waiting :decision ${ednString(key)}}`;

/** The decision section of the first user message (empty string when there are none). */
export function renderDecisions(decisions: ResolvedDecision[]): string {
  if (!decisions.length) return '';
  const lines = decisions.map((d) => `- ${d.key}: ${d.description} Allowed values: ${zodTypeText(d.values)}.`);
  const first = decisions[0]!.key;
  return [
    '## External decisions',
    'A person records these in the journal under the key shown. Never make them yourself.',
    ...lines,
    '',
    'Read a decision with a task on its key whose body waits:',
    '```clojure',
    `(let [decision (task ${ednString(first)} (return ${waitingForm(first)}))]`,
    '  ...)',
    '```',
    'While the key is missing this ends the program with the waiting status and records nothing. ' +
      'Once the decision is recorded, the program that waited is normally run again from the start and the same task returns it, ' +
      'so handle every allowed value in that program; you are asked to continue when it does not end the mission (or cannot be run again).',
  ].join('\n');
}
