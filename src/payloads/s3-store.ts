/**
 * The payload store for a cluster: any S3-compatible bucket (AWS S3, MinIO, Versity Gateway,
 * R2...), so every worker and client on every machine sees the same objects, where a folder
 * (file-store.ts) is only seen by one machine. On the official AWS SDK v3; credentials come
 * from the standard AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles, roles), never
 * from variables of our own. Each put sends the SHA-256 of its bytes, so the server refuses an
 * upload that arrived damaged.
 */
import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { type PayloadStore, PayloadStoreError, type StoredObject, checkKey } from './store.ts';

export interface S3StoreOptions {
  bucket: string;
  /** put before every key (`navigator/` → `navigator/sha256/...`); a '/' is added when missing */
  prefix?: string;
  /** an S3-compatible server (`http://127.0.0.1:7070`); AWS S3 without it */
  endpoint?: string;
  /** @default 'us-east-1' */
  region?: string;
  /** `endpoint/bucket/key` URLs instead of `bucket.endpoint/key` (most servers other than AWS need it) */
  forcePathStyle?: boolean;
  /** keys of its own; without them, the standard AWS chain (AWS_ACCESS_KEY_ID, profiles, roles) */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** a client of your own (timeouts, retries, credentials); the options above but bucket and prefix are then ignored */
  client?: S3Client;
}

const KEY = /^sha256\/[0-9a-f]{64}$/;

export class S3Store implements PayloadStore {
  readonly location: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly client: S3Client;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix ?? '');
    this.location = `s3://${this.bucket}/${this.prefix}`;
    this.client =
      options.client ??
      new S3Client({
        region: options.region ?? 'us-east-1',
        endpoint: options.endpoint,
        forcePathStyle: options.forcePathStyle ?? false,
        ...(options.credentials ? { credentials: options.credentials } : {}),
      });
  }

  private objectKey(key: string): string {
    return this.prefix + checkKey(key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.objectKey(key);
    const ChecksumSHA256 = createHash('sha256').update(bytes).digest('base64');
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key,
          Body: bytes,
          ContentType: 'application/octet-stream',
          ChecksumSHA256,
        }),
      );
    } catch (err) {
      throw new PayloadStoreError(this.location, 'put', key, err);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const Key = this.objectKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      return await out.Body!.transformToByteArray();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw new PayloadStoreError(this.location, 'get', key, err);
    }
  }

  async *list(): AsyncIterable<StoredObject> {
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.bucket, Prefix: `${this.prefix}sha256/` },
    );
    try {
      for await (const page of pages) {
        for (const o of page.Contents ?? []) {
          const key = o.Key?.slice(this.prefix.length) ?? '';
          if (KEY.test(key)) yield { key, size: o.Size ?? 0, modified: o.LastModified ?? new Date(0) };
        }
      }
    } catch (err) {
      throw new PayloadStoreError(this.location, 'list', null, err);
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (err) {
      if (!isNotFound(err)) throw new PayloadStoreError(this.location, 'delete', key, err);
    }
  }
}

function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * The store of an `s3://bucket/optional/prefix` URL. Endpoint: `NAVIGATOR_S3_ENDPOINT`, else
 * the AWS standard `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`; path-style URLs when an endpoint
 * is given unless `NAVIGATOR_S3_FORCE_PATH_STYLE=0`. Region: `AWS_REGION` / `AWS_DEFAULT_REGION`,
 * else us-east-1.
 */
export function s3StoreFromUrl(url: string, env: NodeJS.ProcessEnv = process.env): S3Store {
  const { bucket, prefix } = parseS3Url(url);
  const endpoint = env.NAVIGATOR_S3_ENDPOINT || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  const forcePathStyle = endpoint !== undefined && env.NAVIGATOR_S3_FORCE_PATH_STYLE !== '0';
  // an environment other than the process's (a test, a tool configuring several stores) gives its keys directly;
  // the process's own is read by the AWS chain itself
  const keys =
    env !== process.env && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          credentials: {
            accessKeyId: env.AWS_ACCESS_KEY_ID,
            secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
      : {};
  return new S3Store({ bucket, prefix, endpoint, region, forcePathStyle, ...keys });
}

/** `s3://bucket/a/b` → `{ bucket: 'bucket', prefix: 'a/b' }`, or an error saying what is wrong. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const bad = (why: string) =>
    new Error(`not a payload store URL: ${JSON.stringify(url)}: ${why} (expected s3://bucket or s3://bucket/prefix)`);
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!m) throw bad('it does not start with s3://');
  const [, bucket = '', prefix = ''] = m;
  if (bucket === '') throw bad('no bucket name');
  if (bucket.includes('@') || bucket.includes(':'))
    throw bad('credentials and ports do not go in the URL (use the AWS variables and NAVIGATOR_S3_ENDPOINT)');
  if (!BUCKET.test(bucket)) throw bad(`${JSON.stringify(bucket)} is not a bucket name (3-63 of a-z, 0-9, '.', '-')`);
  if (/[?#]/.test(prefix)) throw bad('a query or fragment is not allowed');
  if (prefix.split('/').some((part, i, all) => part === '..' || part === '.' || (part === '' && i < all.length - 1)))
    throw bad('the prefix has an empty, "." or ".." segment');
  return { bucket, prefix };
}
