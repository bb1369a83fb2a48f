/**
 * A cache of values made from a string key (generated code by source, compiled regexes by
 * pattern), bounded: emptied when it holds `max` entries. A program is analysed anew on
 * every run, so these caches are what lets runs share the expensive parts; emptying them
 * now and then bounds memory for a worker that sees endless distinct programs.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max: number) {}

  /** The value for `key`, made by `make` the first time (a throw from `make` caches nothing). */
  get(key: string, make: () => V): V {
    if (this.entries.has(key)) return this.entries.get(key)!;
    const v = make();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, v);
    return v;
  }
}
