/**
 * Who may use the console and how changes are protected:
 * - bound to 127.0.0.1 by default; any other host needs a token (checked at start-up);
 * - with tokens, every request carries one (`Authorization: Bearer T`, or the cookie that
 *   `/?token=T` sets), compared in constant time on sha256 hashes; a token written
 *   `NAME:SECRET` records NAME as `by` on what its holder decides;
 * - without a token only loopback host names are served, so a web page that rebinds its
 *   own DNS name to 127.0.0.1 cannot read the console (nor its CSRF token);
 * - every state-changing request carries the CSRF token of the page's forms and comes
 *   from the console's own origin (Origin, else Referer; neither is refused);
 * - pages may not be framed (no clickjacking of the Approve button), scripts load only
 *   from the console itself.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';

declare module 'hono' {
  interface ContextVariableMap {
    /** who sends this request: the token's name, else the console's `--user` */
    by: string;
  }
}

const COOKIE = 'navigator_console';

const digest = (s: string) => createHash('sha256').update(s).digest();
export const sameSecret = (given: string | undefined, expected: string): boolean => given !== undefined && timingSafeEqual(digest(given), digest(expected));

export interface Token {
  /** recorded as `by`; null: the console's user */
  name: string | null;
  secret: string;
}

/**
 * Tokens from `--token` / NAVIGATOR_CONSOLE_TOKEN: `SECRET` or `NAME:SECRET`, several
 * separated by commas (one per approver, so each decision names its approver).
 */
export function parseTokens(spec: string | undefined): Token[] {
  return (spec ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const colon = t.indexOf(':');
      return colon > 0 ? { name: t.slice(0, colon), secret: t.slice(colon + 1) } : { name: null, secret: t };
    });
}

/** The token that matches `given`; every token is compared, in constant time. */
function matching(given: string | undefined, tokens: readonly Token[]): Token | null {
  let found: Token | null = null;
  for (const t of tokens) if (sameSecret(given, t.secret) && !found) found = t;
  return found;
}

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;
export const isLoopbackName = (hostname: string): boolean => LOOPBACK.test(hostname);

export interface Security {
  /** the form field every POST must carry */
  csrfToken: string;
  middleware: MiddlewareHandler;
}

export interface SecurityOptions {
  /** one or more tokens, see {@link parseTokens}; none: loopback only */
  token?: string;
  /** `by` for requests whose token has no name (or when there is no token) */
  user: string;
}

export function security(opts: SecurityOptions): Security {
  const tokens = parseTokens(opts.token);
  const csrfToken = createHmac('sha256', randomBytes(32)).update('csrf').digest('hex');
  const headers = secureHeaders({
    xFrameOptions: 'DENY',
    referrerPolicy: 'same-origin',
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      // the page's own <style> block; no style comes from elsewhere
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
  const guard: MiddlewareHandler = async (c, next) => {
    const who = tokens.length ? authenticate(c, tokens) : loopbackOnly(c);
    if (who instanceof Response) return who;
    c.set('by', who ?? opts.user);
    if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method)) {
      const problem = crossOrigin(c) ?? (await csrfProblem(c, csrfToken));
      if (problem) return c.text(problem, 403);
    }
    await next();
  };
  // the headers go on every answer, refusals included
  const middleware: MiddlewareHandler = (c, next) =>
    headers(c, async () => {
      const refused = await guard(c, next);
      if (refused instanceof Response) c.res = refused;
    });
  return { csrfToken, middleware };
}

/** The token's name (null: unnamed), or the response refusing the request. */
function authenticate(c: Context, tokens: readonly Token[]): string | null | Response {
  const fromQuery = c.req.method === 'GET' ? c.req.query('token') : undefined;
  const queried = matching(fromQuery, tokens);
  if (fromQuery !== undefined && queried) {
    const url = new URL(c.req.url);
    setCookie(c, COOKIE, fromQuery, { httpOnly: true, sameSite: 'Strict', path: '/', secure: url.protocol === 'https:' });
    // the token leaves the address bar (and the history); the rest of the address stays
    url.searchParams.delete('token');
    return c.redirect(`${url.pathname}${url.search}`, 303);
  }
  const bearer = c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
  const token = matching(bearer ?? getCookie(c, COOKIE), tokens);
  if (!token) return c.text('a console token is required (open /?token=TOKEN once)', 401);
  return token.name;
}

/** Without a token: only requests addressed to a loopback name (no DNS rebinding). */
function loopbackOnly(c: Context): null | Response {
  const hostname = new URL(c.req.url).hostname;
  if (isLoopbackName(hostname)) return null;
  return c.text(`this console answers only on 127.0.0.1 or localhost, not ${hostname} (give it a token to serve other names)`, 421);
}

/** A change must come from the console's own pages: Origin, else Referer, must be ours. */
function crossOrigin(c: Context): string | null {
  const own = new URL(c.req.url).origin;
  const origin = c.req.header('origin');
  if (origin !== undefined) return origin === own ? null : `cross-origin request refused (Origin ${origin})`;
  const referer = c.req.header('referer');
  if (referer === undefined) return 'request refused: neither Origin nor Referer says it comes from this console';
  return originOf(referer) === own ? null : `cross-origin request refused (Referer ${referer})`;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

async function csrfProblem(c: Context, csrfToken: string): Promise<string | null> {
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const given = typeof form._csrf === 'string' ? form._csrf : c.req.header('x-csrf-token');
  return sameSecret(given, csrfToken) ? null : 'missing or wrong CSRF token: reload the page and try again';
}
