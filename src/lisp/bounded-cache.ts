/**
 * A cache of values made from a string key (generated code by source, compiled regexes by
 * pattern), bounded: emptied when it holds `max` entries. A program is analysed anew on
 * every run, so these caches are what lets runs share the expensive parts; emptying them
 * now and then bounds memory for a worker that sees endless distinct programs.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max: number) {
    all.push(this);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** The value for `key`, made by `make` the first time (a throw from `make` caches nothing). */
  get(key: string, make: () => V): V {
    if (this.entries.has(key)) return this.entries.get(key)!;
    const v = make();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, v);
    return v;
  }
}

const all: Array<BoundedCache<unknown>> = [];
let generation = 0;

/**
 * Empties every cache, for the benchmark that times a program new to a warm process:
 * its second run must pay what its first paid. {@link cacheGeneration} goes up, so
 * generated code can mark its source as new (V8 keeps its own compilation cache by
 * source text).
 */
export function forgetCaches(): void {
  generation++;
  for (const c of all) c.clear();
}

/** How many times {@link forgetCaches} ran (0 outside benchmarks). */
export function cacheGeneration(): number {
  return generation;
}
