/**
 * Armed timers derived from state. Every deadline the server honours (timer fire,
 * activity and workflow-task timeouts, retry backoff, run timeouts) is an absolute time
 * stored in the run's state; after each change the engine recomputes the wanted set and
 * this class arms or disarms the difference. A restarted server re-arms everything the
 * same way, which is what makes `--db` continue timers where they stopped.
 */
export interface Deadline {
  /** Unique within the run, e.g. `timer:1` or `activity:5:heartbeat`. */
  name: string;
  at: number;
}

/** setTimeout cannot wait longer than 2^31-1 ms; longer deadlines re-arm on wake-up. */
const MAX_DELAY = 2_147_000_000;

export class Deadlines {
  private readonly armed = new Map<string, Map<string, { at: number; handle: NodeJS.Timeout }>>();

  constructor(private readonly fire: (owner: string, name: string) => void) {}

  /** Makes the armed deadlines of `owner` exactly `wanted`. */
  reconcile(owner: string, wanted: Deadline[]): void {
    let current = this.armed.get(owner);
    if (!current) {
      if (wanted.length === 0) return;
      this.armed.set(owner, (current = new Map()));
    }
    const names = new Set(wanted.map((d) => d.name));
    for (const [name, entry] of current) {
      if (!names.has(name)) {
        clearTimeout(entry.handle);
        current.delete(name);
      }
    }
    for (const d of wanted) {
      const existing = current.get(d.name);
      if (existing?.at === d.at) continue;
      if (existing) clearTimeout(existing.handle);
      current.set(d.name, { at: d.at, handle: this.arm(owner, d) });
    }
    if (current.size === 0) this.armed.delete(owner);
  }

  private arm(owner: string, d: Deadline): NodeJS.Timeout {
    const delay = Math.min(MAX_DELAY, Math.max(0, d.at - Date.now()));
    const handle = setTimeout(() => {
      const map = this.armed.get(owner);
      if (map?.get(d.name)?.handle !== handle) return;
      if (Date.now() < d.at) {
        map.set(d.name, { at: d.at, handle: this.arm(owner, d) });
        return;
      }
      map.delete(d.name);
      this.fire(owner, d.name);
    }, delay);
    handle.unref?.();
    return handle;
  }

  clearAll(): void {
    for (const map of this.armed.values()) for (const e of map.values()) clearTimeout(e.handle);
    this.armed.clear();
  }
}
