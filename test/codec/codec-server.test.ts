/**
 * The codec server is never a decryption oracle by accident (issue 39): beyond loopback it
 * refuses to start without authorization (and --no-auth is refused there); on loopback it
 * generates a secret, accepted as `Authorization: Bearer` or as the endpoint's path (what
 * the Temporal UI sends), and --no-auth opts out; a weak or empty secret is refused;
 * a foreign Host gets 421; CORS answers the UI's origin only. The AES-GCM codec itself,
 * with no Temporal server.
 */
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { AesGcmCodec, keysFromEnv } from '../../src/codec/aes-gcm.ts';
import { type CodecServer, type CodecServerOptions, startCodecServer } from '../../src/codec/server.ts';

const codec = new AesGcmCodec(keysFromEnv({ NAVIGATOR_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}` }));
const SECRET = 'codec-secret-0123456789';
let servers: CodecServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const start = async (o: Partial<CodecServerOptions>) => {
  const s = await startCodecServer({ codec, port: 0, ...o });
  servers.push(s);
  return s;
};

/** An encrypted payload, as history holds it, in the codec protocol's JSON. */
async function encryptedBody(): Promise<string> {
  const [p] = (await codec.encode([defaultPayloadConverter.toPayload({ wire: 'to bob' }) as Payload])) as [Payload];
  const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');
  return JSON.stringify({
    payloads: [
      { metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, b64(v!)])), data: b64(p.data!) },
    ],
  });
}

/** POST to `address:port` with exactly these headers (Host included), as a client other than a browser can. */
function post(address: string, port: number, path: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      { host: address, port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const portOf = (s: CodecServer) => Number(new URL(s.url).port);
const networkAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

describe('beyond loopback', () => {
  it('refuses to start without authorization, and refuses --no-auth', async () => {
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(
      /binds to 0\.0\.0\.0.*decrypt every payload.*--authorization/,
    );
    await expect(start({ host: '0.0.0.0', noAuth: true })).rejects.toThrow(/--no-auth is only for 127\.0\.0\.1/);
  });

  it('with a secret: a request to the network address needs it; a foreign Host gets 421', async () => {
    const address = networkAddress();
    const s = await start({ host: '0.0.0.0', secret: SECRET });
    const target = address ?? '127.0.0.1';
    const host = `${target}:${portOf(s)}`;
    const body = await encryptedBody();
    expect((await post(target, portOf(s), '/decode', { host }, body)).status).toBe(401);
    const ok = await post(target, portOf(s), '/decode', { host, authorization: `Bearer ${SECRET}` }, body);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(Buffer.from(JSON.stringify({ wire: 'to bob' })).toString('base64'));
    const rebound = await post(
      target,
      portOf(s),
      '/decode',
      { host: `attacker.example:${portOf(s)}`, authorization: `Bearer ${SECRET}` },
      body,
    );
    expect(rebound.status).toBe(421);
  });
});

describe('on loopback', () => {
  it('generates a secret when given none: no request decodes without it', async () => {
    const s = await start({});
    expect(s.generated).toBe(true);
    expect(s.secret!.length).toBeGreaterThanOrEqual(32);
    expect(s.endpoint).toBe(`${s.url}/${s.secret}`);
    const body = await encryptedBody();
    const host = `127.0.0.1:${portOf(s)}`;
    expect((await post('127.0.0.1', portOf(s), '/decode', { host }, body)).status).toBe(401);
    expect(
      (await post('127.0.0.1', portOf(s), '/decode', { host, authorization: 'Bearer wrong-secret-0123456789' }, body))
        .status,
    ).toBe(401);
    expect((await post('127.0.0.1', portOf(s), '/wrong-secret-0123456789/decode', { host }, body)).status).toBe(401);
    expect(
      (await post('127.0.0.1', portOf(s), '/decode', { host, authorization: `Bearer ${s.secret}` }, body)).status,
    ).toBe(200);
    // the Temporal UI posts to ENDPOINT/decode, with no header of its own
    expect((await fetch(`${s.endpoint}/decode`, { method: 'POST', body })).status).toBe(200);
  });

  it('answers 421 to a foreign Host (DNS rebinding), even with the secret', async () => {
    const s = await start({ secret: SECRET });
    const res = await post(
      '127.0.0.1',
      portOf(s),
      '/decode',
      { host: `attacker.example:${portOf(s)}`, authorization: `Bearer ${SECRET}` },
      await encryptedBody(),
    );
    expect(res.status).toBe(421);
    expect(res.text).toMatch(/does not answer for attacker\.example/);
    expect(
      (
        await post(
          '127.0.0.1',
          portOf(s),
          '/decode',
          { host: `localhost:${portOf(s)}`, authorization: `Bearer ${SECRET}` },
          await encryptedBody(),
        )
      ).status,
    ).toBe(200);
  });

  it('--no-auth serves without authorization, still for loopback names only', async () => {
    const s = await start({ noAuth: true });
    expect(s.secret).toBeNull();
    expect(s.endpoint).toBe(s.url);
    expect((await fetch(`${s.url}/decode`, { method: 'POST', body: await encryptedBody() })).status).toBe(200);
    expect((await post('127.0.0.1', portOf(s), '/decode', { host: 'rebound.example' }, '{"payloads":[]}')).status).toBe(
      421,
    );
    await expect(start({ noAuth: true, secret: SECRET })).rejects.toThrow(/either --no-auth or an authorization/);
  });

  it('an exact Authorization header (temporal --codec-auth) is accepted; CORS answers the UI origin only', async () => {
    const s = await start({ authorization: `Bearer ${SECRET}`, origin: 'http://localhost:8233' });
    expect(s.secret).toBeNull();
    expect(
      (
        await fetch(`${s.url}/decode`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SECRET}` },
          body: '{"payloads":[]}',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await fetch(`${s.url}/decode`, {
          method: 'POST',
          headers: { authorization: `Basic ${SECRET}` },
          body: '{"payloads":[]}',
        })
      ).status,
    ).toBe(401);
    const preflight = await fetch(`${s.url}/x/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8233' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const other = await fetch(`${s.url}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('weak secrets', () => {
  it('an empty or short secret or credential is refused at start, saying the variable was probably unset', async () => {
    await expect(start({ secret: '' })).rejects.toThrow(
      /codec secret.*is empty: the variable it was made from was probably unset/,
    );
    await expect(start({ authorization: 'Bearer ' })).rejects.toThrow(/credential of --authorization.*is empty/);
    await expect(start({ authorization: 'Bearer short' })).rejects.toThrow(/5 characters long: give at least 16/);
    await expect(start({ host: '0.0.0.0', secret: 'short' })).rejects.toThrow(/at least 16/);
  });
});
