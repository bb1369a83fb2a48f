/**
 * Who may use the console and how changes are protected:
 * - bound to 127.0.0.1 by default; any other host needs a token (checked at start-up);
 * - with a token, every request carries it (`Authorization: Bearer T`, or the cookie that
 *   `/?token=T` sets), compared in constant time;
 * - every state-changing request (POST) carries the CSRF token of the page's forms and,
 *   when the browser names one, an Origin equal to the console's own.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

const COOKIE = 'navigator_console';

const digest = (s: string) => createHash('sha256').update(s).digest();
export const sameSecret = (given: string | undefined, expected: string): boolean => given !== undefined && timingSafeEqual(digest(given), digest(expected));

export interface Security {
  /** the form field every POST must carry */
  csrfToken: string;
  middleware: MiddlewareHandler;
}

export function security(opts: { token?: string }): Security {
  const csrfToken = createHmac('sha256', randomBytes(32)).update('csrf').digest('hex');
  const middleware: MiddlewareHandler = async (c, next) => {
    if (opts.token !== undefined) {
      const fromQuery = c.req.query('token');
      if (fromQuery !== undefined && sameSecret(fromQuery, opts.token)) {
        setCookie(c, COOKIE, opts.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
        return c.redirect(new URL(c.req.url).pathname, 303);
      }
      const bearer = c.req.header('authorization')?.replace(/^Bearer\s+/i, '');
      if (!sameSecret(bearer ?? getCookie(c, COOKIE), opts.token)) return c.text('a console token is required (open /?token=TOKEN once)', 401);
    }
    if (c.req.method === 'POST') {
      const problem = await csrfProblem(c, csrfToken);
      if (problem) return c.text(problem, 403);
    }
    await next();
  };
  return { csrfToken, middleware };
}

async function csrfProblem(c: Context, csrfToken: string): Promise<string | null> {
  const origin = c.req.header('origin');
  const own = new URL(c.req.url).origin;
  if (origin !== undefined && origin !== own) return `cross-origin request refused (Origin ${origin})`;
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const given = typeof form._csrf === 'string' ? form._csrf : c.req.header('x-csrf-token');
  return sameSecret(given, csrfToken) ? null : 'missing or wrong CSRF token: reload the page and try again';
}
