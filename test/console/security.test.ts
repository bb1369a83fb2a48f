/**
 * The console's security middleware on its own (no Temporal): headers that forbid framing
 * and foreign scripts, loopback-only names without a token (no DNS rebinding), tokens
 * (named ones record who acts), and the same-origin + CSRF rule for every change, over
 * app.request and over a real listening server.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecurityOptions, parseTokens, security } from '../../src/console/security.ts';
import { TokenSet } from '../../src/console/tokens.ts';

/** An app with the console's middleware and routes that say who asked. */
function appWith(o: Partial<SecurityOptions> = { noAuth: true }) {
  const sec = security({ user: 'console-user', ...o });
  const app = new Hono();
  app.use('*', sec.middleware);
  app.get('/who', (c) => c.text(c.get('by')));
  app.get('/roles', (c) => c.text(c.get('roles').join(',')));
  app.post('/act', (c) => c.text(`done by ${c.get('by')}`));
  return { app, csrf: sec.csrfToken };
}
const withTokens = (token: string) => appWith({ tokens: new TokenSet({ token }) });

const ANA = 'ana-secret-0123456789';
const BOB = 'bob-secret-0123456789';
const SHARED = 'shared-secret-0123456789';

const form = (fields: Record<string, string>, headers: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});

describe('headers', () => {
  it('forbid framing and foreign scripts on every answer, refusals included', async () => {
    const { app } = appWith();
    for (const res of [
      await app.request('http://127.0.0.1/who'),
      await app.request('http://127.0.0.1/act', form({}, {})),
    ]) {
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("form-action 'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
  });
});

describe('--no-auth', () => {
  it('is refused beyond loopback; giving no way to authenticate, or two, is refused', () => {
    expect(() => security({ user: 'u', noAuth: true, host: '0.0.0.0' })).toThrow(/--no-auth is only for 127\.0\.0\.1/);
    expect(() => security({ user: 'u' })).toThrow(/needs a way to authenticate/);
    expect(() => security({ user: 'u', noAuth: true, tokens: new TokenSet({ token: `ana:${ANA}` }) })).toThrow(
      /give one way to authenticate/,
    );
  });

  it('answers loopback names only, so a rebound DNS name cannot read the console', async () => {
    const { app } = appWith({ noAuth: true });
    for (const host of ['127.0.0.1:8233', 'localhost', '[::1]:8233']) {
      const res = await app.request(`http://${host}/who`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('console-user');
    }
    const rebound = await app.request('http://attacker.example:8233/who');
    expect(rebound.status).toBe(421);
    expect(await rebound.text()).toMatch(/only on 127\.0\.0\.1 or localhost/);
  });

  describe('on a listening server, by the Host header the browser sends', () => {
    let server: ReturnType<typeof serve>;
    let port: number;
    beforeAll(async () => {
      const { app } = appWith();
      server = await new Promise((resolve) => {
        const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
      });
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/who', headers: { host } },
          (res) => (res.resume(), resolve(res.statusCode!)),
        );
        req.on('error', reject);
        req.end();
      });

    it('serves 127.0.0.1 and localhost, refuses any other name', async () => {
      expect(await get(`127.0.0.1:${port}`)).toBe(200);
      expect(await get(`localhost:${port}`)).toBe(200);
      expect(await get(`attacker.example:${port}`)).toBe(421);
    });
  });
});

describe('tokens', () => {
  it('parse as SECRET, NAME:SECRET or NAME[role,role]:SECRET, comma-separated', () => {
    expect(parseTokens(SHARED)).toEqual([{ name: null, secret: SHARED, roles: [] }]);
    expect(parseTokens(`ana:${ANA}, bob[finance,ops]:b:${BOB}`)).toEqual([
      { name: 'ana', secret: ANA, roles: [] },
      { name: 'bob', secret: `b:${BOB}`, roles: ['finance', 'ops'] },
    ]);
    expect(parseTokens(' , ')).toEqual([]);
    expect(parseTokens(undefined)).toEqual([]);
  });

  it('refuse an empty secret (an unset variable), an empty name, a short secret, a shared one, an empty --token', () => {
    expect(() => parseTokens('ana:')).toThrow(
      /the secret of ana in --token .* is empty: the variable it was made from was probably unset/,
    );
    expect(() => parseTokens(`ana:${ANA},bob:`)).toThrow(/secret of bob .* is empty/);
    expect(() => parseTokens(`:${ANA}`)).toThrow(/starts with ':': the name before it is empty/);
    expect(() => parseTokens('ana:s3cret')).toThrow(/6 characters long: give at least 16/);
    expect(() => parseTokens('s3cret')).toThrow(/unnamed token .* at least 16/);
    expect(() => parseTokens(`ana:${ANA},bob:${ANA}`)).toThrow(/share a secret/);
    expect(() => parseTokens(`ana[fin ance]:${ANA}`)).toThrow(/role "fin ance"/);
    expect(() => new TokenSet({ token: '' })).toThrow(
      /--token .* is empty: the variable it was made from was probably unset/,
    );
    expect(() => security({ user: 'u', tokens: new TokenSet({ token: 'ana:' }) })).toThrow(/empty/);
  });

  it('a named token records its name and roles; an unnamed one the console user; any host name is served', async () => {
    const { app } = withTokens(`ana[finance]:${ANA},bob:${BOB},${SHARED}`);
    const who = async (secret: string, path = '/who') =>
      (
        await app.request(`http://console.example.com${path}`, { headers: { authorization: `Bearer ${secret}` } })
      ).text();
    expect(await who(ANA)).toBe('ana');
    expect(await who(ANA, '/roles')).toBe('finance');
    expect(await who(BOB)).toBe('bob');
    expect(await who(SHARED)).toBe('console-user');
    expect(
      (await app.request('http://console.example.com/who', { headers: { authorization: `Bearer ana:${ANA}` } })).status,
    ).toBe(401);
    expect((await app.request('http://console.example.com/who')).status).toBe(401);
  });

  it('an empty cookie or /?token= never signs in', async () => {
    const { app } = withTokens(`ana:${ANA}`);
    expect(
      (await app.request('http://127.0.0.1:8233/who', { headers: { cookie: 'navigator_console_8233=' } })).status,
    ).toBe(401);
    expect((await app.request('http://127.0.0.1:8233/?token=')).status).toBe(401);
    expect((await app.request('http://127.0.0.1:8233/who', { headers: { authorization: 'Bearer ' } })).status).toBe(
      401,
    );
  });

  it('/?token= sets an HttpOnly, SameSite=Strict cookie (Secure on https) and keeps the rest of the address', async () => {
    const { app } = withTokens(`ana:${ANA}`);
    const res = await app.request(`https://console.example.com/missions?status=Running&token=${ANA}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/missions?status=Running');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Secure/);
    const again = await app.request('https://console.example.com/who', { headers: { cookie: cookie.split(';')[0]! } });
    expect(await again.text()).toBe('ana');
    expect((await app.request('https://console.example.com/who?token=wrong')).status).toBe(401);
  });
});

describe('changes', () => {
  const ORIGIN = 'http://127.0.0.1:8233';
  const { app, csrf } = appWith();
  const act = (fields: Record<string, string>, headers: Record<string, string>) =>
    app.request(`${ORIGIN}/act`, form(fields, headers));

  it('need the same origin: Origin, else Referer; neither is refused', async () => {
    expect((await act({ _csrf: csrf }, { origin: ORIGIN })).status).toBe(200);
    expect((await act({ _csrf: csrf }, { referer: `${ORIGIN}/missions/x` })).status).toBe(200);
    expect((await act({ _csrf: csrf }, {})).status).toBe(403);
    expect((await act({ _csrf: csrf }, { origin: 'null' })).status).toBe(403);
    expect((await act({ _csrf: csrf }, { origin: 'http://localhost:8233' })).status).toBe(403);
    const foreign = await act({ _csrf: csrf }, { referer: 'http://attacker.example/page' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toMatch(/Referer/);
  });

  it('need the CSRF token, as a form field or the X-CSRF-Token header', async () => {
    expect((await act({}, { origin: ORIGIN })).status).toBe(403);
    expect((await act({ _csrf: 'f00' }, { origin: ORIGIN })).status).toBe(403);
    const byHeader = await app.request(`${ORIGIN}/act`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'x-csrf-token': csrf },
    });
    expect(byHeader.status).toBe(200);
    expect(await byHeader.text()).toBe('done by console-user');
  });
});
