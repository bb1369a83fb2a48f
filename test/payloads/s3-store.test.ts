/**
 * The S3 payload store against a real S3 server: Versity Gateway (src/machine/versitygw.ts)
 * over a temporary folder, started by this file. It is a Go build, so the server tests run on
 * the real-server lane (NAVIGATOR_TEST_SERVER=temporal) or with NAVIGATOR_VERSITYGW set, and
 * are skipped with the reason otherwise; the URL parsing tests run everywhere.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Store, parseS3Url, s3StoreFromUrl } from '../../src/payloads/s3-store.ts';
import { PayloadStoreError } from '../../src/payloads/store.ts';
import { type VersityGw, buildVersityGw, findVersityGw, startVersityGw } from '../../src/machine/versitygw.ts';

function skipReason(): string | null {
  if (process.env.NAVIGATOR_TEST_SERVER !== 'temporal' && !process.env.NAVIGATOR_VERSITYGW) {
    return 'needs Versity Gateway: runs on the real-server lane (npm run test:real) or with NAVIGATOR_VERSITYGW=<binary> (npm run versitygw:build)';
  }
  if (findVersityGw() !== null) return null;
  const go = spawnSync('go', ['version']);
  return go.error || go.status !== 0
    ? 'Go is not installed: building Versity Gateway needs it (or set NAVIGATOR_VERSITYGW)'
    : null;
}

const keyOf = (bytes: Uint8Array) => `sha256/${createHash('sha256').update(bytes).digest('hex')}`;
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));

const reason = skipReason();
if (reason) console.warn(`test/payloads/s3-store.test.ts: S3Store on Versity Gateway skipped: ${reason}`);

describe.skipIf(reason !== null)(`S3Store on Versity Gateway${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let gw: VersityGw;
  const clients: S3Client[] = [];
  const client = (c: S3Client) => (clients.push(c), c);
  const store = (prefix: string) => new S3Store({ bucket: 'payloads', prefix, client: client(gw.client()) });

  beforeAll(async () => {
    const binary = buildVersityGw({ log: (line) => console.error(line) });
    gw = await startVersityGw({ binary });
    await gw.createBucket('payloads');
  }, 900_000);
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.stop();
  });

  it('puts and gets 1 KB and 20 MB back byte for byte', async () => {
    const s = store('roundtrip');
    for (const size of [1024, 20 * 1024 * 1024]) {
      const bytes = new Uint8Array(randomBytes(size));
      await s.put(keyOf(bytes), bytes);
      expect(same(await s.get(keyOf(bytes)), bytes)).toBe(true);
    }
  });

  it('gets null for a key it does not hold', async () => {
    expect(await store('missing').get(`sha256/${'0'.repeat(64)}`)).toBeNull();
  });

  it('lists what was put under its prefix, with sizes', async () => {
    const s = store('list/');
    const values = [1, 1000, 100_000].map((n) => new Uint8Array(randomBytes(n)));
    for (const v of values) await s.put(keyOf(v), v);
    const other = new Uint8Array(randomBytes(10));
    await store('list-other').put(keyOf(other), other);
    const listed = [];
    for await (const o of s.list()) listed.push(o);
    expect(listed.map((o) => [o.key, o.size]).sort()).toEqual(values.map((v) => [keyOf(v), v.length]).sort());
    for (const o of listed) expect(o.modified.getTime()).toBeGreaterThan(Date.now() - 600_000);
  });

  it('deletes, and deleting again is no error', async () => {
    const s = store('delete');
    const bytes = new Uint8Array(randomBytes(2048));
    await s.put(keyOf(bytes), bytes);
    await s.delete(keyOf(bytes));
    expect(await s.get(keyOf(bytes))).toBeNull();
    await s.delete(keyOf(bytes));
    const listed = [];
    for await (const o of s.list()) listed.push(o);
    expect(listed).toEqual([]);
  });

  it('a wrong secret is a PayloadStoreError naming the location and operation, not a missing object', async () => {
    const wrong = client(
      new S3Client({
        endpoint: gw.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: gw.accessKey, secretAccessKey: 'wrong' },
        maxAttempts: 1,
      }),
    );
    const s = new S3Store({ bucket: 'payloads', prefix: 'auth', client: wrong });
    const bytes = new Uint8Array(randomBytes(16));
    for (const [operation, call] of [
      ['put', () => s.put(keyOf(bytes), bytes)],
      ['get', () => s.get(keyOf(bytes))],
    ] as const) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PayloadStoreError);
      expect(err).toMatchObject({ location: 's3://payloads/auth/', operation, key: keyOf(bytes) });
      expect((err as Error).message).toContain(
        `payload store s3://payloads/auth/: ${operation} ${keyOf(bytes)} failed`,
      );
    }
  });

  it('a stopped gateway is a PayloadStoreError at once, not a hang', async () => {
    const gone = await startVersityGw({ binary: findVersityGw()! });
    await gone.stop();
    const c = client(
      new S3Client({
        endpoint: gone.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: gone.accessKey, secretAccessKey: gone.secretKey },
        maxAttempts: 1,
        requestHandler: { connectionTimeout: 1000, requestTimeout: 2000 },
      }),
    );
    const s = new S3Store({ bucket: 'payloads', client: c });
    const started = Date.now();
    await expect(s.get(`sha256/${'1'.repeat(64)}`)).rejects.toMatchObject({
      name: 'PayloadStoreError',
      operation: 'get',
    });
    const listing = async () => {
      for await (const _ of s.list()) void _;
    };
    await expect(listing()).rejects.toMatchObject({
      name: 'PayloadStoreError',
      operation: 'list',
      location: 's3://payloads/',
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('s3StoreFromUrl', () => {
  it('takes the bucket and prefix from the URL', () => {
    expect(parseS3Url('s3://payloads')).toEqual({ bucket: 'payloads', prefix: '' });
    expect(parseS3Url('s3://payloads/')).toEqual({ bucket: 'payloads', prefix: '' });
    expect(parseS3Url('s3://my.bucket-1/a/b')).toEqual({ bucket: 'my.bucket-1', prefix: 'a/b' });
    const s = s3StoreFromUrl('s3://payloads/navigator', {});
    expect([s.location, s.bucket, s.prefix]).toEqual(['s3://payloads/navigator/', 'payloads', 'navigator/']);
  });

  it('says what is wrong with a malformed URL', () => {
    expect(() => parseS3Url('payloads/x')).toThrow(/"payloads\/x": it does not start with s3:\/\//);
    expect(() => parseS3Url('s3:///x')).toThrow(/no bucket name/);
    expect(() => parseS3Url('s3://Payloads')).toThrow(/"Payloads" is not a bucket name/);
    expect(() => parseS3Url('s3://key:secret@payloads')).toThrow(/credentials and ports do not go in the URL/);
    expect(() => parseS3Url('s3://payloads/a//b')).toThrow(/empty, "." or ".." segment/);
    expect(() => parseS3Url('s3://payloads/a?x=1')).toThrow(/query or fragment/);
  });

  it('takes the endpoint and region from the environment, path style with an endpoint', async () => {
    const config = async (env: NodeJS.ProcessEnv) => {
      const c = s3StoreFromUrl('s3://payloads', env).client;
      const endpoint = c.config.endpoint ? await c.config.endpoint() : null;
      return { region: await c.config.region(), pathStyle: c.config.forcePathStyle, host: endpoint?.hostname ?? null };
    };
    expect(await config({})).toEqual({ region: 'us-east-1', pathStyle: false, host: null });
    expect(await config({ AWS_DEFAULT_REGION: 'eu-west-3' })).toMatchObject({ region: 'eu-west-3' });
    expect(await config({ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-3' })).toMatchObject({
      region: 'eu-west-1',
    });
    expect(
      await config({ AWS_ENDPOINT_URL: 'http://a.example:1', AWS_ENDPOINT_URL_S3: 'http://b.example:1' }),
    ).toMatchObject({ host: 'b.example', pathStyle: true });
    expect(
      await config({ AWS_ENDPOINT_URL_S3: 'http://b.example:1', NAVIGATOR_S3_ENDPOINT: 'http://c.example:1' }),
    ).toMatchObject({ host: 'c.example', pathStyle: true });
    expect(
      await config({ NAVIGATOR_S3_ENDPOINT: 'http://c.example:1', NAVIGATOR_S3_FORCE_PATH_STYLE: '0' }),
    ).toMatchObject({ pathStyle: false });
  });
});
