/**
 * The words missions and plans share, defined once: JSON data, side-effect classes, the
 * closed list of failure types a workflow or activity raises, and how a zod error reads
 * as text. Import-free, so workflow code can use it without pulling zod into the
 * workflow bundle; the zod schemas of the same things are in `schemas.ts`.
 */

/**
 * How long a pass, a mission effect or a plan step may go without a heartbeat before
 * Temporal retries it on another worker. Workers beat every 2 s and send a beat at least
 * every 2 s, so a crashed call is retried at most 5 s after its worker died, at once on a
 * worker that is there then (or the moment a new one polls).
 */
export const DEFAULT_HEARTBEAT_MS = 5_000;

/** Longest one tool call may run, a mission effect or a plan step attempt alike. */
export const DEFAULT_TOOL_MS = 5 * 60_000;

/** JSON data: what crosses into tools, the journal and Temporal payloads. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * What a tool does to the world, which decides its retries, its task wrapping and its
 * approvals: `read_only` reads, `local` and `memory` change state the worker owns,
 * `external` changes the world outside (money, mail, tickets).
 */
export const SIDE_EFFECT_CLASSES = ['read_only', 'local', 'memory', 'external'] as const;
export type SideEffectClass = (typeof SIDE_EFFECT_CLASSES)[number];

/**
 * Every `ApplicationFailure` type a workflow or activity of ours raises. A retry policy,
 * a client that explains a failure and the audit match on these names, so they are a
 * closed list: a new failure is added here first.
 */
export const FAILURE_TYPES = [
  // bad input, refused before anything runs
  'InvalidMissionInput',
  'InvalidPlanInput',
  'InvalidAgentInput',
  'InvalidPlan',
  'InvalidPlanEdit',
  'InvalidExpression',
  // a person's answer to a plan question that its schema refuses
  'InvalidAnswer',
  'InvalidToolArgs',
  'UnknownAgent',
  'UnknownTool',
  'ModelConfig',
  // the model could not be reached through the provider's own retries: retried, never a failed pass
  'ModelUnavailable',
  // a tool's own answer: an error (retried) or a refusal (final)
  'ToolError',
  'ToolRejected',
  // a result over NAVIGATOR_MAX_RESULT_BYTES (or, with no payload store, over what history takes)
  'ResultTooLarge',
  // the payload store could not keep a large answer within the activity's own retries
  'PayloadStoreUnavailable',
  // a pass's view of workflow state
  'InvalidPassState',
  'StalePassState',
  'StaleJournal',
  // how a run ends when it does not succeed
  'InvalidMission',
  'NavigatorFail',
  'MaxPassesExceeded',
  'ApprovalTimeout',
  'MissionCancelled',
  'PlanCancelled',
  'PlanFailed',
] as const;
export type FailureType = (typeof FAILURE_TYPES)[number];

/** Failures a retry cannot cure, whatever the activity: a tool activity never retries them. */
export const NON_RETRYABLE_TOOL_FAILURES: FailureType[] = [
  'InvalidToolArgs',
  'UnknownTool',
  'UnknownAgent',
  'ToolRejected',
];

/** Problems (kernel/schemas.ts Problem) as one line: `a.b: expected a string; c: required`. */
export function problemsText(problems: ReadonlyArray<{ path: string; message: string }>): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
}

/** One zod issue as `path: message` (the path prefixed; `fallback` names the root). */
export function issueText(
  issue: { path: PropertyKey[]; message: string },
  fallback = 'input',
  prefix: PropertyKey[] = [],
): string {
  const path = [...prefix, ...issue.path].map(String).join('.');
  return `${path || fallback}: ${issue.message}`;
}

/** A zod error's issues joined into one line: `a.b: expected a string; c: required`. */
export function issuesText(
  error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> },
  fallback = 'input',
  prefix: PropertyKey[] = [],
): string {
  return error.issues.map((i) => issueText(i, fallback, prefix)).join('; ');
}

/** What one external effect gave the pass that asked for it: its value, or why it failed. */
export type EffectResult = { ok: Json } | { error: string };

/**
 * `{:status :waiting :decision "key"}` → the decision key a pass's return waits for (the
 * agent's first decision when it names none); any other value is final. Pure, so the
 * readers of history (the console's pass view) ask the same question as the workflow.
 */
export function waitingDecision(value: Json, decisions: readonly { key: string }[] | undefined): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  if (value.status !== 'waiting') return null;
  const named = value.decision ?? value.for ?? value.key;
  if (typeof named === 'string' && named.length > 0) return named;
  return decisions?.[0]?.key ?? 'decision';
}

/**
 * The tools whose calls leave a pass as effects, each run in its own activity once any
 * approval is in: every external tool, and every tool that waits for a person's approval
 * whatever its class (a `local` tool with `requiresApproval`, a destructive one under
 * `approvals.destructive`). Run inside the pass, a gated tool would run before anyone
 * could approve it. The pass and the audit's replay of it both ask this.
 *
 * @param classes each tool's side-effect class, by name
 * @param gated the tools that wait for approval (navigator/agent.ts toolsNeedingApproval)
 */
export function effectToolNames(classes: Record<string, string>, gated: readonly string[] = []): Set<string> {
  const external = Object.keys(classes).filter((name) => classes[name] === 'external');
  return new Set([...external, ...gated]);
}
