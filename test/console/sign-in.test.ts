/**
 * How people sign in to the console, with no Temporal (issue 39): on loopback without
 * tokens, the console's own session entered through a one-time link (a local process that
 * forges Origin and knows the CSRF token is still refused without it); a tokens file read
 * again on change (rotation without a restart, a broken file closes the console); the
 * user and roles an authenticating proxy's headers name, believed only on loopback or from
 * the proxy's address.
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type SecurityOptions, security } from '../../src/console/security.ts';
import { LoginSession, TokenSet } from '../../src/console/tokens.ts';

function appWith(o: Partial<SecurityOptions>) {
  const sec = security({ user: 'operator', ...o });
  const app = new Hono();
  app.use('*', sec.middleware);
  app.get('/who', (c) => c.text(`${c.get('by')} [${c.get('roles').join(',')}]`));
  app.post('/act', (c) => c.text(`done by ${c.get('by')}`));
  return { app, csrf: sec.csrfToken };
}

const ORIGIN = 'http://127.0.0.1:8233';
const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!;
const act = (app: Hono, csrf: string, headers: Record<string, string>) =>
  app.request(`${ORIGIN}/act`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...headers },
    body: new URLSearchParams({ _csrf: csrf }).toString(),
  });

describe("the console's own session on loopback", () => {
  it('a one-time link sets the cookie once; a second use is refused, except by whoever holds the session', async () => {
    const session = new LoginSession();
    const { app } = appWith({ session, roles: ['ops'] });
    expect((await app.request(`${ORIGIN}/who`)).status).toBe(401);
    const code = session.newCode();
    const first = await app.request(`${ORIGIN}/missions?status=Running&login=${code}`);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/missions?status=Running');
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/);
    const cookie = cookieOf(first);
    expect(await (await app.request(`${ORIGIN}/who`, { headers: { cookie } })).text()).toBe('operator [ops]');
    const again = await app.request(`${ORIGIN}/?login=${code}`);
    expect(again.status).toBe(401);
    expect(await again.text()).toMatch(/used already/);
    expect((await app.request(`${ORIGIN}/?login=${code}`, { headers: { cookie } })).status).toBe(303);
    expect((await app.request(`${ORIGIN}/who`, { headers: { cookie: 'navigator_console_8233=' } })).status).toBe(401);
  });

  it('a forged POST from a local process (Origin forged, CSRF token known) without the session is refused', async () => {
    const session = new LoginSession();
    const { app, csrf } = appWith({ session });
    const forged = await act(app, csrf, {});
    expect(forged.status).toBe(401);
    const cookie = cookieOf(await app.request(`${ORIGIN}/?login=${session.newCode()}`));
    const signed = await act(app, csrf, { cookie });
    expect(signed.status).toBe(200);
    expect(await signed.text()).toBe('done by operator');
  });

  it('answers loopback names only (no DNS rebinding), even with the cookie', async () => {
    const session = new LoginSession();
    const { app } = appWith({ session });
    const cookie = cookieOf(await app.request(`${ORIGIN}/?login=${session.newCode()}`));
    expect((await app.request('http://rebound.example:8233/who', { headers: { cookie } })).status).toBe(421);
  });
});

describe('a tokens file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-tokens-'));
  /** written beside and moved into place, as deploy tools do (a new inode each time) */
  const write = (file: string, text: string) => {
    writeFileSync(`${file}.new`, text);
    renameSync(`${file}.new`, file);
  };
  const as = (app: Hono, secret: string) =>
    app.request(`${ORIGIN}/who`, { headers: { authorization: `Bearer ${secret}` } });

  it('is read again when it changes: a rotated secret works at once, the old one no longer', async () => {
    const file = join(dir, 'rotate');
    write(file, '# approvers\nana[finance]:ana-secret-0000000001\nbob:bob-secret-0000000001\n');
    const { app } = appWith({ tokens: new TokenSet({ tokensFile: file }) });
    expect(await (await as(app, 'ana-secret-0000000001')).text()).toBe('ana [finance]');
    write(file, 'ana[finance]:ana-secret-0000000002\n');
    expect((await as(app, 'ana-secret-0000000001')).status).toBe(401);
    expect((await as(app, 'bob-secret-0000000001')).status).toBe(401);
    expect(await (await as(app, 'ana-secret-0000000002')).text()).toBe('ana [finance]');
  });

  it('that breaks closes the console until it is fixed; at start a bad one is refused', async () => {
    const file = join(dir, 'broken');
    write(file, 'ana:ana-secret-0000000001\n');
    const problems: string[] = [];
    const { app } = appWith({ tokens: new TokenSet({ tokensFile: file, onProblem: (p) => problems.push(p) }) });
    expect((await as(app, 'ana-secret-0000000001')).status).toBe(200);
    write(file, 'ana:\n');
    const closed = await as(app, 'ana-secret-0000000001');
    expect(closed.status).toBe(503);
    expect(await closed.text()).toMatch(/secret of ana in the tokens file is empty/);
    expect(problems).toHaveLength(1);
    write(file, 'ana:ana-secret-0000000003\n');
    expect((await as(app, 'ana-secret-0000000003')).status).toBe(200);
    write(join(dir, 'short'), 'ana:short\n');
    await expect(new TokenSet({ tokensFile: join(dir, 'short') }).check()).rejects.toThrow(/at least 16/);
    await expect(new TokenSet({ tokensFile: join(dir, 'missing') }).check()).rejects.toThrow(/ENOENT/);
  });
});

describe('an authenticating proxy', () => {
  const proxy = { userHeader: 'X-Forwarded-User', groupsHeader: 'X-Forwarded-Groups' };
  /** app.request with the socket address a request came from, as @hono/node-server passes it */
  const from = (app: Hono, address: string, headers: Record<string, string>) =>
    app.request(`${ORIGIN}/who`, { headers }, { incoming: { socket: { remoteAddress: address } } });

  it('names the user and their roles; without the header nobody is let in', async () => {
    const { app } = appWith({ proxy });
    expect(
      await (
        await app.request(`${ORIGIN}/who`, {
          headers: { 'x-forwarded-user': 'ana@example.com', 'x-forwarded-groups': 'finance, ops' },
        })
      ).text(),
    ).toBe('ana@example.com [finance,ops]');
    const none = await app.request(`${ORIGIN}/who`);
    expect(none.status).toBe(401);
    expect(await none.text()).toMatch(/no X-Forwarded-User header/);
    // a token is no way in when the proxy authenticates
    expect(
      (await app.request(`${ORIGIN}/who`, { headers: { authorization: 'Bearer whatever-0123456789' } })).status,
    ).toBe(401);
  });

  it('is believed beyond loopback only from the proxy address', async () => {
    expect(() => security({ user: 'u', proxy, host: '0.0.0.0' })).toThrow(
      /anyone who reaches it could send that header.*--trusted-proxy/,
    );
    const { app } = appWith({ proxy: { ...proxy, trusted: ['10.0.0.5'] }, host: '0.0.0.0' });
    expect(await (await from(app, '::ffff:10.0.0.5', { 'x-forwarded-user': 'ana' })).text()).toBe('ana []');
    const direct = await from(app, '10.0.0.9', { 'x-forwarded-user': 'ana' });
    expect(direct.status).toBe(403);
    expect(await direct.text()).toMatch(/through the authenticating proxy, not from 10\.0\.0\.9/);
  });
});
