/**
 * Who may decide what, in the console: a decision or a gated tool may name its approvers
 * (`approvers: ['finance']`); the request's roles come from its authentication (a token's
 * `[roles]`, the proxy's groups header, or `--role` for the console's own user). A card is
 * shown only to those who may decide it, a verdict from anyone else is refused with 403
 * before it reaches the workflow (which refuses it too), and the role that may decide is
 * sent with the verdict and recorded.
 */
import type { Context } from 'hono';
import { tryGetContext } from 'hono/context-storage';
import { mayDecide, roleFor } from '../workflows/approvers.ts';
import { type Fragment, html } from './html.ts';

/** The roles of the request being answered (none outside a request). */
export const currentRoles = (): readonly string[] => tryGetContext()?.get('roles') ?? [];

/** Whether the request being answered may decide what `approvers` names. */
export const mayDecideNow = (approvers: readonly string[] | undefined): boolean => mayDecide(approvers, currentRoles());

/** A card in place of the buttons for someone who may not decide: who may. */
export function othersDecide(what: Fragment | string, approvers: readonly string[]): Fragment {
  const by = tryGetContext()?.get('by');
  return html`<div class="card approval others"><p>${what} waits for ${approvers.join(' or ')}${by ? html`; you act as <strong>${by}</strong>${rolesText(currentRoles())}` : ''}, so it is not yours to decide.</p></div>`;
}

const rolesText = (roles: readonly string[]) => (roles.length ? ` (${roles.join(', ')})` : ' (no role)');

/**
 * The role a verdict is sent with, or the 403 refusing it: `approvers` of what is decided
 * against the request's roles.
 */
export function verdictRole(
  c: Context,
  approvers: readonly string[] | undefined,
  what: string,
): { role?: string } | Response {
  const roles = c.get('roles') ?? [];
  if (!mayDecide(approvers, roles)) {
    return c.text(
      `${what} may be decided only by ${approvers!.join(' or ')}; you act as ${c.get('by')}${rolesText(roles)}`,
      403,
    );
  }
  const role = roleFor(approvers, roles);
  return role ? { role } : {};
}
