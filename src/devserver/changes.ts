/**
 * What changed in the server state since the last write, so `--db` writes only that.
 * State is a set of top-level maps (runs, chains, namespaces, ...); a change names a map
 * and a key in it, a whole map, or — when the caller cannot say — everything. Marking
 * more than changed is always safe (it costs a bigger write); marking less loses data,
 * so the vaguer marks exist for callers that do not know precisely.
 */

/** A dirty map: the keys changed in it, or 'all' when the whole map must be written. */
export type DirtyKeys = Set<string> | 'all';

export class ChangeSet {
  private maps = new Map<string, DirtyKeys>();
  private everything = false;

  /**
   * `mark('runs', key)`: one entry (also a deleted one); `mark('runs')`: the whole map;
   * `mark()`: every map.
   */
  mark(collection?: string, key?: string): void {
    if (this.everything) return;
    if (collection === undefined) {
      this.everything = true;
      this.maps.clear();
      return;
    }
    const keys = this.maps.get(collection);
    if (keys === 'all') return;
    if (key === undefined) this.maps.set(collection, 'all');
    else if (keys) keys.add(key);
    else this.maps.set(collection, new Set([key]));
  }

  get empty(): boolean {
    return !this.everything && this.maps.size === 0;
  }

  /** Returns the changes marked so far and starts a new, empty set. */
  take(): { everything: boolean; maps: Map<string, DirtyKeys> } {
    const taken = { everything: this.everything, maps: this.maps };
    this.everything = false;
    this.maps = new Map();
    return taken;
  }
}
