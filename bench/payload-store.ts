/**
 * `npm run bench -- payload-store`: write and read throughput of the payload stores side by
 * side: FileStore in a temporary folder, and S3Store through Versity Gateway (a real S3 server
 * over a temporary folder on the same disk, on loopback). Each size: one untimed warm-up
 * value, then 5 timed runs, each a put of a value not stored yet and a get of it back; the
 * median of each. MB = 2^20 bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore } from '../src/payloads/file-store.ts';
import { S3Store } from '../src/payloads/s3-store.ts';
import type { PayloadStore } from '../src/payloads/store.ts';
import { buildVersityGw, startVersityGw } from '../src/machine/versitygw.ts';

const MB = 1024 * 1024;
const SIZES = [1, 20];
const RUNS = 5;

interface Timing {
  writeMs: number;
  readMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const keyOf = (bytes: Uint8Array) => `sha256/${createHash('sha256').update(bytes).digest('hex')}`;

/** Median put and get times of fresh `mb`-MB values on `store`. */
async function time(store: PayloadStore, mb: number): Promise<Timing> {
  const values = Array.from({ length: RUNS + 1 }, () => new Uint8Array(randomBytes(mb * MB)));
  const writes: number[] = [];
  const reads: number[] = [];
  for (const [i, value] of values.entries()) {
    const key = keyOf(value);
    let t = performance.now();
    await store.put(key, value);
    const w = performance.now() - t;
    t = performance.now();
    const back = await store.get(key);
    const r = performance.now() - t;
    if (back?.length !== value.length)
      throw new Error(`${store.location}: read back ${back?.length ?? 'nothing'} bytes of ${value.length}`);
    if (i > 0) {
      writes.push(w);
      reads.push(r);
    }
  }
  return { writeMs: median(writes), readMs: median(reads) };
}

async function timeAll(store: PayloadStore): Promise<Map<number, Timing>> {
  const out = new Map<number, Timing>();
  for (const mb of SIZES) out.set(mb, await time(store, mb));
  return out;
}

function table(file: Map<number, Timing>, s3: Map<number, Timing>): string[] {
  const cell = (ms: number, mb: number) =>
    `${ms.toFixed(1).padStart(8)} ms ${(mb / (ms / 1000)).toFixed(0).padStart(6)} MB/s`;
  const lines = [
    `${'value'.padEnd(12)}${'FileStore (temp dir)'.padEnd(24)}${'S3Store (Versity Gateway)'.padEnd(28)}S3 / file`,
  ];
  for (const mb of SIZES) {
    for (const op of ['write', 'read'] as const) {
      const f = op === 'write' ? file.get(mb)!.writeMs : file.get(mb)!.readMs;
      const s = op === 'write' ? s3.get(mb)!.writeMs : s3.get(mb)!.readMs;
      lines.push(
        `${`${mb} MB ${op}`.padEnd(12)}${cell(f, mb).padEnd(24)}${cell(s, mb).padEnd(28)}${(s / f).toFixed(2)}x`,
      );
    }
  }
  return lines;
}

/** The figures as printable lines (median of 5 runs each). */
export async function benchPayloadStores(): Promise<string> {
  let binary: string;
  try {
    binary = buildVersityGw({ log: (line) => console.error(line) });
  } catch (e) {
    return `skipped: ${(e as Error).message}`;
  }
  const dir = mkdtempSync(join(tmpdir(), 'navigator-bench-payloads-'));
  const gw = await startVersityGw({ binary, dir: join(dir, 's3') });
  const client = gw.client();
  try {
    await gw.createBucket('payloads');
    const file = await timeAll(new FileStore(join(dir, 'file')));
    const s3 = await timeAll(new S3Store({ bucket: 'payloads', client }));
    const note = `median of ${RUNS} runs each after one warm-up; Versity Gateway ${gw.endpoint} (posix backend) on the same disk as the FileStore folder`;
    return [...table(file, s3), note].join('\n');
  } finally {
    client.destroy();
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
