/**
 * Who may decide what: a decision or a gated tool may name the roles allowed to decide it
 * (`approvers: ['finance']`). The workflow refuses a verdict from any other role (the
 * update's validator), the console hides the card from those who may not decide it, and
 * the CLI and client say the role they act with. A role is what the caller says: behind
 * it stands whoever may send updates to the namespace (see docs/security.md). Workflow
 * code: no zod, deterministic.
 */

/** Why someone acting with `role` may not decide what only `approvers` may, or null. */
export function roleProblem(
  approvers: readonly string[] | undefined,
  role: string | undefined,
  what: string,
): string | null {
  if (!approvers?.length) return null;
  if (role !== undefined && approvers.includes(role)) return null;
  const who = approvers.join(' or ');
  return role === undefined
    ? `${what} may be decided only by ${who}: act with one of these roles (--role ROLE, or role in the client)`
    : `${what} may be decided only by ${who}, not by ${role}`;
}

/** The role among `roles` that may decide what `approvers` names (the first), or undefined; no approvers: undefined. */
export function roleFor(approvers: readonly string[] | undefined, roles: readonly string[]): string | undefined {
  if (!approvers?.length) return undefined;
  return approvers.find((a) => roles.includes(a));
}

/** Whether someone with `roles` may decide what `approvers` names. */
export const mayDecide = (approvers: readonly string[] | undefined, roles: readonly string[]): boolean =>
  !approvers?.length || roleFor(approvers, roles) !== undefined;
