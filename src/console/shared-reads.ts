/**
 * One read serves every live stream that wants the same thing at about the same time.
 * Each open inbox polls everything waiting for a person (a query per running mission and
 * plan); with several approvers, or several tabs, each poll asked the cluster again. A
 * read started less than `maxAgeMs` ago (running or done) is shared instead, so the
 * cluster answers about once per interval however many pages watch. A failed read is
 * not kept; the last `max` keys read are (the least recently read dropped first).
 */
export class SharedReads {
  private readonly latest = new Map<string, { at: number; value: Promise<unknown> }>();

  constructor(
    private readonly max = 256,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get<T>(key: string, maxAgeMs: number, read: () => Promise<T>): Promise<T> {
    const had = this.latest.get(key);
    if (had && this.now() - had.at < maxAgeMs) return had.value as Promise<T>;
    const value = read();
    const entry = { at: this.now(), value };
    this.latest.delete(key); // set again: the Map's order is the order of reading, oldest first
    this.latest.set(key, entry);
    if (this.latest.size > this.max) this.latest.delete(this.latest.keys().next().value!);
    value.catch(() => this.latest.get(key) === entry && this.latest.delete(key));
    return value;
  }
}
