/**
 * Who may use the console and how changes are protected. Every request is authenticated,
 * one way, chosen at start (server.ts) so that none is open by accident:
 * - tokens (tokens.ts): `Authorization: Bearer T`, or the cookie that `/?token=T` sets;
 *   a named token's name is who acts, and its roles what it may decide;
 * - on loopback without tokens, the console's own session: a secret nobody is told, set as
 *   the cookie by a printed one-time link (`/?login=CODE`);
 * - behind an authenticating reverse proxy (proxy.ts), the user its header names;
 * - none (`noAuth`), on loopback only, for a machine one person uses.
 * Then:
 * - the console's session and `noAuth` answer only loopback Host names, so a web page that
 *   rebinds its own DNS name to 127.0.0.1 cannot read the console (nor its CSRF token);
 * - every state-changing request carries the CSRF token of the page's forms and comes from
 *   the console's own origin (Origin, else Referer; neither is refused);
 * - pages may not be framed (no clickjacking of the Approve button), scripts load only
 *   from the console itself.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { type ProxyAuth, checkProxyAuth, fromProxy } from './proxy.ts';
import { isLoopbackName, sameSecret } from '../codec/secrets.ts';
import { type LoginSession, type Token, type TokenSet, matching } from './tokens.ts';

export { isLoopbackName, sameSecret } from '../codec/secrets.ts';
export { parseTokens } from './tokens.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** who sends this request: the authenticated name, else the console's `--user` */
    by: string;
    /** the roles this request acts with (see `approvers`) */
    roles: readonly string[];
  }
}

export interface Identity {
  by: string;
  roles: readonly string[];
}

export interface Security {
  /** the form field every POST must carry */
  csrfToken: string;
  middleware: MiddlewareHandler;
}

export interface SecurityOptions {
  /** `by` for requests whose authentication names nobody (an unnamed token, the session, noAuth) */
  user: string;
  /** the roles of those requests */
  roles?: readonly string[];
  /** the tokens in force */
  tokens?: TokenSet;
  /** the console's own session (loopback, no tokens): one-time login links */
  session?: LoginSession;
  /** the user from an authenticating reverse proxy's header */
  proxy?: ProxyAuth;
  /** no authentication: loopback names only */
  noAuth?: boolean;
  /** the address the console binds @default 127.0.0.1 */
  host?: string;
}

/** The one way `opts` authenticates; throws when none or several are given, or one cannot be used there. */
function modeOf(opts: SecurityOptions): 'tokens' | 'proxy' | 'none' {
  const modes = [
    opts.tokens?.given || opts.session ? 'tokens' : null,
    opts.proxy ? 'proxy' : null,
    opts.noAuth ? 'none' : null,
  ].filter((m) => m !== null);
  if (modes.length === 0)
    throw new Error(
      'the console needs a way to authenticate: tokens (--token, --tokens-file), --trust-proxy-header, or on 127.0.0.1 its one-time link (the default) or --no-auth',
    );
  if (modes.length > 1)
    throw new Error(
      `give one way to authenticate, not ${modes.join(' and ')}: tokens, --trust-proxy-header or --no-auth`,
    );
  const host = opts.host ?? '127.0.0.1';
  if (opts.noAuth && !isLoopbackName(host))
    throw new Error(
      `the console binds to ${host}, reachable from other machines: --no-auth is only for 127.0.0.1; give a token (--token, --tokens-file or NAVIGATOR_CONSOLE_TOKEN)`,
    );
  if (opts.proxy) checkProxyAuth(opts.proxy, host);
  return modes[0] as 'tokens' | 'proxy' | 'none';
}

export function security(opts: SecurityOptions): Security {
  const mode = modeOf(opts);
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
  const operator: Identity = { by: opts.user, roles: opts.roles ?? [] };
  const identify = async (c: Context): Promise<Identity | Response> => {
    if (mode === 'none') return loopbackOnly(c) ?? operator;
    if (mode === 'proxy') return fromProxy(c, opts.proxy!);
    return authenticate(c, opts, operator);
  };
  const guard: MiddlewareHandler = async (c, next) => {
    const who = await identify(c);
    if (who instanceof Response) return who;
    c.set('by', who.by);
    c.set('roles', who.roles);
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

/** One cookie per console origin (cookies do not tell ports apart: two local consoles keep theirs). */
const cookieName = (c: Context) => {
  const port = new URL(c.req.url).port;
  return port ? `navigator_console_${port}` : 'navigator_console';
};

const identityOf = (token: Token, operator: Identity): Identity =>
  token.name === null ? operator : { by: token.name, roles: token.roles };

/** By token, cookie, `?token=` or the session's one-time `?login=`: who asks, or the response refusing the request. */
async function authenticate(c: Context, opts: SecurityOptions, operator: Identity): Promise<Identity | Response> {
  if (opts.session) {
    const refused = loopbackOnly(c);
    if (refused) return refused;
  }
  const now = opts.tokens ? await opts.tokens.current() : { tokens: [] };
  if ('problem' in now) return c.text(`the console accepts no token now: ${now.problem}`, 503);
  const tokens = opts.session ? [...now.tokens, opts.session.token] : now.tokens;
  const bearer = c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
  const held = matching(bearer ?? getCookie(c, cookieName(c)), tokens);
  if (c.req.method === 'GET') {
    const login = c.req.query('login');
    if (login !== undefined && opts.session) {
      // a used link opened again by whoever already holds the session only leaves the address bar
      if (held || opts.session.redeem(login)) return signedIn(c, opts.session.token.secret, 'login');
      return c.text(
        'this one-time link was used already (or is wrong): ask whoever runs the console for a new one',
        401,
      );
    }
    const given = c.req.query('token');
    if (given !== undefined && matching(given, tokens)) return signedIn(c, given, 'token');
  }
  if (!held)
    return c.text(
      opts.session
        ? 'sign in through the one-time link the console printed at start'
        : 'a console token is required (open /?token=TOKEN once)',
      401,
    );
  return identityOf(held, operator);
}

/** Sets the cookie and sends the browser on without the secret in its address bar (nor its history). */
function signedIn(c: Context, secret: string, param: string): Response {
  const url = new URL(c.req.url);
  setCookie(c, cookieName(c), secret, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: url.protocol === 'https:',
  });
  url.searchParams.delete(param);
  return c.redirect(`${url.pathname}${url.search}`, 303);
}

/** Only requests addressed to a loopback name (no DNS rebinding); null when it is one. */
function loopbackOnly(c: Context): null | Response {
  const hostname = new URL(c.req.url).hostname;
  if (isLoopbackName(hostname)) return null;
  return c.text(
    `this console answers only on 127.0.0.1 or localhost, not ${hostname} (give it a token to serve other names)`,
    421,
  );
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
