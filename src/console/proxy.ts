/**
 * The user behind an authenticating reverse proxy (oauth2-proxy, an SSO gateway): the
 * proxy signs the person in and passes their name in a header (`--trust-proxy-header
 * X-Forwarded-User`) and their groups in another (`--trust-proxy-groups-header
 * X-Forwarded-Groups`, comma-separated: the roles they act with). A header says only what
 * whoever sent the request wrote in it, so it is believed only where the proxy alone
 * reaches the console: bound to loopback (the proxy runs beside it), or from the proxy's
 * own addresses (`--trusted-proxy`), every other sender refused.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { isLoopbackName } from '../codec/secrets.ts';

export interface ProxyAuth {
  /** the header the proxy sets to the signed-in user's name, e.g. X-Forwarded-User */
  userHeader: string;
  /** the header of the user's groups (comma-separated): the roles */
  groupsHeader?: string;
  /** the addresses the proxy connects from; required unless the console binds to loopback */
  trusted?: readonly string[];
}

const HEADER = /^[A-Za-z0-9-]+$/;

/** Throws when `p` would believe a header anyone can send. */
export function checkProxyAuth(p: ProxyAuth, host: string): void {
  for (const h of [p.userHeader, p.groupsHeader].filter((x) => x !== undefined)) {
    if (!HEADER.test(h)) throw new Error(`--trust-proxy-header: "${h}" is not a header name (letters, digits and -)`);
  }
  if (!isLoopbackName(host) && !p.trusted?.length) {
    throw new Error(
      `--trust-proxy-header ${p.userHeader}: the console binds to ${host}, so anyone who reaches it could send that header and act as anyone: give --trusted-proxy ADDRESS (the proxy's), or bind to 127.0.0.1 behind the proxy`,
    );
  }
}

/** The address the request came from (`::ffff:10.0.0.5` as 10.0.0.5), null when unknown (no socket). */
function remoteAddress(c: Context): string | null {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return address ? address.replace(/^::ffff:/, '') : null;
}

/** Who the proxy says sends the request, or the response refusing it. */
export function fromProxy(c: Context, p: ProxyAuth): { by: string; roles: string[] } | Response {
  if (p.trusted?.length) {
    const from = remoteAddress(c);
    if (from === null || !p.trusted.some((t) => t.replace(/^::ffff:/, '') === from)) {
      return c.text(
        `requests must come through the authenticating proxy, not from ${from ?? 'an unknown address'}`,
        403,
      );
    }
  }
  const user = c.req.header(p.userHeader)?.trim();
  if (!user)
    return c.text(`the proxy did not say who you are (no ${p.userHeader} header): sign in through the proxy`, 401);
  if (user.length > 200 || /[\u0000-\u001f]/.test(user))
    return c.text(`the ${p.userHeader} header is not a user name`, 400);
  const groups = p.groupsHeader ? (c.req.header(p.groupsHeader) ?? '') : '';
  return {
    by: user,
    roles: groups
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean),
  };
}
