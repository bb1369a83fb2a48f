/**
 * The default payload store: a folder on this machine, one file per object
 * (`<dir>/sha256/ab/<digest>`), written to a temporary name and renamed so a reader never
 * sees half an object. Zero set-up for `npm start`, tests and `navigator dev`; on a cluster
 * every worker and client must see the same folder, or use an S3 bucket (s3-store.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { type PayloadStore, PayloadStoreError, type StoredObject, checkKey } from './store.ts';

export class FileStore implements PayloadStore {
  readonly location: string;

  constructor(readonly dir: string) {
    this.location = `file:${dir}`;
  }

  private pathOf(key: string): string {
    const digest = checkKey(key).slice('sha256/'.length);
    return join(this.dir, 'sha256', digest.slice(0, 2), digest);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    try {
      const existing = await stat(path).catch(() => null);
      if (existing?.size === bytes.length) {
        // written again: its age starts again, so gc does not take it from a payload about to enter history
        const now = new Date();
        await utimes(path, now, now);
        return;
      }
      await mkdir(join(path, '..'), { recursive: true });
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      const file = await open(tmp, 'w');
      try {
        await file.writeFile(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, path);
    } catch (err) {
      throw new PayloadStoreError(this.location, 'put', key, err);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const path = this.pathOf(key);
    try {
      return new Uint8Array(await readFile(path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new PayloadStoreError(this.location, 'get', key, err);
    }
  }

  async *list(): AsyncIterable<StoredObject> {
    const root = join(this.dir, 'sha256');
    const prefixes = await readdir(root).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw new PayloadStoreError(this.location, 'list', null, err);
    });
    for (const prefix of prefixes) {
      for (const name of await readdir(join(root, prefix)).catch(() => [] as string[])) {
        if (name.endsWith('.tmp')) continue;
        const s = await stat(join(root, prefix, name)).catch(() => null);
        if (s?.isFile()) yield { key: `sha256/${name}`, size: s.size, modified: s.mtime };
      }
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true }).catch((err) => {
      throw new PayloadStoreError(this.location, 'delete', key, err);
    });
  }
}
