/**
 * `--db FILE`: the server state as an append-only log of JSON lines, so that a write
 * costs what changed rather than the whole state (which grows with every workflow kept).
 *
 * ```
 * {"format":"navigator-devserver/2"}
 * {"c":"runs","k":"default|wf-1|<runId>","v":{...}}   one entry of a top-level map
 * {"c":"runs","k":"default|wf-0|<runId>","v":null}    that entry deleted
 * {"c":"schedules","v":{...}}                         a whole map replaced
 * {"commit":7}                                        end of one write
 * ```
 * The maps are whatever top-level keys ServerState has (namespaces, runs, chains, ...):
 * nothing here names them, so a new map is persisted as soon as the engine marks its
 * changes (see changes.ts). Loading replays the lines onto an empty state.
 *
 * Crash safety. A write is applied on load only if its commit line is there, so a write
 * cut short by kill -9 or power loss is dropped whole, never half applied (a run without
 * its chain); a torn last line is such a write. Every write ends with fsync. An RPC is
 * answered only once its changes are on disk (index.ts waits on persisted()), so what a
 * client was told happened survives a kill -9 or a power loss. What can be lost is what
 * no call has answered for yet: calls still running, and changes made by timers,
 * deadlines or retention within the last WRITE_DELAY_MS — those are made again after the
 * restart, because the deadlines that caused them are persisted.
 *
 * Compaction. Rewritten entries leave dead lines behind, so once the log outgrows the
 * last snapshot COMPACT_FACTOR times (and COMPACT_MIN_BYTES) it is replaced by a fresh
 * snapshot (the same format, one line per live entry), written to a temporary file,
 * fsynced and renamed over the log: a crash leaves either the old or the new file.
 *
 * Files of the previous format (one JSON document, navigator-devserver/1) still load;
 * the first write turns them into a log.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { navigatorDataDir } from '../machine/folders.ts';
import { ChangeSet } from './changes.ts';
import type { ServerState } from './model.ts';
import { processRuns } from '../machine/processes.ts';

const FORMAT = 'navigator-devserver/2';
const FORMAT_WHOLE_FILE = 'navigator-devserver/1';
/** Changes made outside an RPC are written this long after the first one, as one write. */
const WRITE_DELAY_MS = 20;
const COMPACT_FACTOR = 4;
const COMPACT_MIN_BYTES = 1024 * 1024;
/** Snapshots are written in chunks of about this size (one syscall each). */
const CHUNK_BYTES = 1024 * 1024;

type Maps = Record<string, unknown>;
/** One log line: an entry (`k`) or a whole map (no `k`); `v: null` deletes. */
interface EntryRecord {
  c: string;
  k?: string;
  v: unknown;
}

export class FileStore {
  private state: Maps | undefined;
  private readonly changes = new ChangeSet();
  private timer: NodeJS.Timeout | undefined;
  /** Group commit: the write at the end of this event-loop turn, and the replies waiting on it. */
  private immediate: NodeJS.Immediate | undefined;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private closed = false;
  /** Append descriptor, opened on the first write after load or compaction. */
  private fd: number | undefined;
  /** Bytes of the file that are complete writes; anything after (a torn write) is cut off. */
  private logBytes = 0;
  /** Size of the file as last compacted (the measure of "much larger"). */
  private snapshotBytes = 0;
  /** The file is missing, of the old format, or a write may not have reached it. */
  private snapshotNeeded = true;
  private commits = 0;

  constructor(readonly path: string) {}

  /**
   * Loads the file (if any) into `state`, an empty state, and persists that object from
   * then on. Returns it.
   */
  open(state: ServerState): ServerState {
    this.state = state as unknown as Maps;
    if (!existsSync(this.path)) return state;
    const loaded = replay(readFileSync(this.path), this.state, this.path);
    this.logBytes = loaded.committedBytes;
    this.snapshotBytes = loaded.committedBytes;
    this.commits = loaded.commits;
    this.snapshotNeeded = loaded.wholeFile;
    return state;
  }

  /** Marks a change (see ChangeSet.mark) and schedules a write of it. */
  changed(collection?: string, key?: string): void {
    if (this.closed) return;
    this.changes.mark(collection, key);
    this.timer ??= setTimeout(() => this.flushScheduled(), WRITE_DELAY_MS);
  }

  /**
   * Resolves once every change marked so far is on disk (undefined: already is). The write
   * happens at the end of the current event-loop turn, so that all the calls answered in
   * one turn share one write and one fsync instead of paying one each.
   */
  persisted(): Promise<void> | undefined {
    if (this.closed || !this.state || (this.changes.empty && !this.snapshotNeeded)) return undefined;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.immediate ??= setImmediate(() => this.flushScheduled());
    return done;
  }

  /** Writes the marked changes now, if there are any; returns once they are on disk. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    const waiters = this.waiters.splice(0);
    try {
      this.write();
    } catch (err) {
      for (const waiter of waiters) waiter.reject(err);
      throw err;
    }
    for (const waiter of waiters) waiter.resolve();
  }

  /** A flush nobody called: its failure goes to the calls waiting on it (and stderr). */
  private flushScheduled(): void {
    try {
      this.flush();
    } catch (err) {
      console.error(`navigator dev server: cannot write ${this.path}:`, err);
    }
  }

  private write(): void {
    if (this.closed || !this.state) return;
    if (this.snapshotNeeded) return this.compact();
    if (this.changes.empty) return;
    const { everything, maps } = this.changes.take();
    if (everything) return this.compact();
    const lines: string[] = [];
    for (const [collection, keys] of maps) {
      const map = this.state[collection];
      if (keys === 'all') {
        lines.push(JSON.stringify({ c: collection, v: map ?? {} }));
        continue;
      }
      for (const key of keys) {
        const value = isMap(map) && Object.hasOwn(map, key) ? map[key] : null;
        lines.push(JSON.stringify({ c: collection, k: key, v: value ?? null }));
      }
    }
    lines.push(JSON.stringify({ commit: ++this.commits }));
    this.append(`${lines.join('\n')}\n`);
    if (this.logBytes > Math.max(COMPACT_MIN_BYTES, COMPACT_FACTOR * this.snapshotBytes)) this.compact();
  }

  /** Replaces the log by a snapshot of the state (atomically: temporary file, fsync, rename). */
  compact(): void {
    if (this.closed || !this.state) return;
    this.changes.take(); // the snapshot holds them all
    this.snapshotNeeded = true; // until the new file is in place
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w');
    let bytes = 0;
    try {
      let chunk: string[] = [JSON.stringify({ format: FORMAT })];
      let chunkLength = 0;
      const emit = (record: EntryRecord) => {
        const line = JSON.stringify(record);
        chunk.push(line);
        chunkLength += line.length;
        if (chunkLength < CHUNK_BYTES) return;
        bytes += writeAll(fd, `${chunk.join('\n')}\n`);
        chunk = [];
        chunkLength = 0;
      };
      for (const [collection, map] of Object.entries(this.state)) {
        if (!isMap(map)) emit({ c: collection, v: map ?? null });
        else for (const [key, value] of Object.entries(map)) emit({ c: collection, k: key, v: value ?? null });
      }
      this.commits = 1;
      chunk.push(JSON.stringify({ commit: this.commits }));
      bytes += writeAll(fd, `${chunk.join('\n')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.closeLog(); // before the rename: Windows cannot replace an open file
    renameSync(tmp, this.path);
    syncDirectory(this.path);
    this.logBytes = bytes;
    this.snapshotBytes = bytes;
    this.snapshotNeeded = false;
  }

  /** Final write; later changes (there should be none) are not saved. */
  close(): void {
    this.flush();
    this.closed = true;
    this.closeLog();
  }

  private append(text: string): void {
    try {
      if (this.fd === undefined) {
        this.fd = openSync(this.path, 'a');
        // Drop a torn or uncommitted tail left by a crash, so new lines follow a complete one.
        ftruncateSync(this.fd, this.logBytes);
      }
      this.logBytes += writeAll(this.fd, text);
      fsyncSync(this.fd);
    } catch (err) {
      // Part of the write may be in the file: the next write replaces the file whole.
      this.snapshotNeeded = true;
      this.closeLog();
      throw err;
    }
  }

  private closeLog(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function writeAll(fd: number, text: string): number {
  const buffer = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < buffer.length;) offset += writeSync(fd, buffer, offset);
  return buffer.length;
}

/** Makes a rename durable: the directory entry is data too (not possible everywhere). */
function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dirname(path), 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Applies a log file (or an old whole-file database) to `state`. Writes count only up to
 * their commit line; a torn or uncommitted tail is ignored, a bad line before the end is
 * corruption and throws.
 */
export function replay(
  file: Buffer,
  state: Maps,
  path: string,
): { committedBytes: number; commits: number; wholeFile: boolean } {
  if (file.length === 0) return { committedBytes: 0, commits: 0, wholeFile: true };
  const firstEnd = file.indexOf(10);
  const header = parseLine(file.toString('utf8', 0, firstEnd < 0 ? file.length : firstEnd));
  if (header?.format === FORMAT_WHOLE_FILE && isMap(header.state)) {
    Object.assign(state, header.state);
    return { committedBytes: 0, commits: 0, wholeFile: true };
  }
  if (header?.format !== FORMAT || firstEnd < 0) {
    throw new Error(`${path}: not a navigator dev server database (${String(header?.format ?? 'unreadable')})`);
  }
  let pending: EntryRecord[] = [];
  let committedBytes = firstEnd + 1;
  let commits = 0;
  for (let start = firstEnd + 1; start < file.length;) {
    const end = file.indexOf(10, start);
    if (end < 0) break; // torn last line: its write never completed
    const record = parseLine(file.toString('utf8', start, end));
    if (!record) {
      if (file.subarray(end + 1).some((byte) => byte !== 10 && byte !== 32)) {
        throw new Error(`${path}: corrupt line at byte ${start}`);
      }
      break; // a garbled last line is a torn write too
    }
    start = end + 1;
    if ('commit' in record) {
      for (const entry of pending) apply(state, entry);
      pending = [];
      committedBytes = start;
      commits = typeof record.commit === 'number' ? record.commit : commits + 1;
    } else if (typeof record.c === 'string') {
      pending.push(record as unknown as EntryRecord);
    } else {
      throw new Error(`${path}: unknown record at byte ${start}`);
    }
  }
  return { committedBytes, commits, wholeFile: false };
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isMap(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function apply(state: Maps, { c, k, v }: EntryRecord): void {
  if (k === undefined) {
    state[c] = v ?? {};
    return;
  }
  const map = isMap(state[c]) ? state[c] : (state[c] = {});
  if (v === null || v === undefined) delete map[k];
  else map[k] = v;
}

/**
 * Where `navigator dev` keeps a server's state unless told otherwise: one file per server
 * kind and port in the per-user data folder, so that a crash of the process (a native
 * abort in the worker, the sandbox or the console, all in the dev process) loses no run,
 * and two dev servers on two ports keep apart.
 */
export function defaultStateFile(
  kind: 'embedded' | 'temporal',
  port: number,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return join(
    navigatorDataDir(env),
    'dev-server',
    kind === 'embedded' ? `embedded-${port}.jsonl` : `temporal-${port}.sqlite`,
  );
}

/**
 * Takes the state file for this process (`FILE.lock` holding its pid), so that a second
 * dev server never writes the same file: a lock of a process still alive is refused with
 * its pid; one left by a process that died (kill -9, a native abort) is taken over.
 * Returns the release (also run when the process exits).
 */
export function lockStateFile(path: string): () => void {
  mkdirSync(dirname(path), { recursive: true });
  const lock = `${path}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0)
        throw new Error(`cannot lock ${lock}: ${(err as Error).message}`, { cause: err });
      const holder = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processRuns(holder)) {
        throw new Error(
          `${path} is in use by another dev server (pid ${holder}); stop it, or give this one another --port or --db FILE`,
          { cause: err },
        );
      }
      rmSync(lock, { force: true });
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      if (readFileSync(lock, 'utf8').trim() === String(process.pid)) rmSync(lock, { force: true });
    } catch {
      // gone already
    }
  };
  process.once('exit', release);
  return release;
}
