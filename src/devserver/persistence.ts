/**
 * `--db FILE`: the whole server state as one JSON file, rewritten (atomically, via a
 * temporary file and rename) shortly after each change. Writes are coalesced so a burst
 * of changes costs one write; shutdown flushes synchronously.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ServerState } from './model.ts';

const FORMAT = 'navigator-devserver/1';
const WRITE_DELAY_MS = 20;

export class FileStore {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly path: string) {}

  load(): ServerState | undefined {
    if (!existsSync(this.path)) return undefined;
    const data = JSON.parse(readFileSync(this.path, 'utf8')) as { format: string; state: ServerState };
    if (data.format !== FORMAT) throw new Error(`${this.path}: not a navigator dev server database (${data.format})`);
    return data.state;
  }

  /** Schedules a write of `state` (the live object: the write sees its latest contents). */
  scheduleSave(state: ServerState): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => this.flush(state), WRITE_DELAY_MS);
  }

  /** Final write: later changes (there should be none) are not saved. */
  close(state: ServerState): void {
    this.flush(state);
    this.closed = true;
  }

  flush(state: ServerState): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify({ format: FORMAT, state }));
    renameSync(tmp, this.path);
  }
}
