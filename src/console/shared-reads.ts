/**
 * One reading serves every live stream that watches the same thing. Each open inbox polls
 * everything waiting for a person (a query per running mission and plan); with several
 * approvers, or several tabs, each poll asked the cluster again.
 *
 * A stream asks for a reading that started at or after a time it names (`notBefore`), and
 * gets the latest one that did, running or done, or a new one. A new stream names the
 * moment it connected: its page was rendered before that, so no reading it is given is
 * older than the page (a reading from before an Approve would look like a change from the
 * page rendered after it, and reload the page again). A failed reading is not kept; the
 * last `max` keys are (the least recently read dropped first).
 */
export interface Reading<T> {
  value: T;
  /** when the reading started: what it says is at least as new as this */
  startedAt: number;
}

export class SharedReads {
  private readonly latest = new Map<string, { startedAt: number; value: Promise<unknown> }>();

  constructor(
    private readonly max = 256,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async get<T>(key: string, notBefore: number, read: () => Promise<T>): Promise<Reading<T>> {
    const had = this.latest.get(key);
    if (had && had.startedAt >= notBefore) return { value: (await had.value) as T, startedAt: had.startedAt };
    const entry = { startedAt: this.now(), value: read() };
    this.latest.delete(key); // set again: the Map's order is the order of reading, oldest first
    this.latest.set(key, entry);
    if (this.latest.size > this.max) this.latest.delete(this.latest.keys().next().value!);
    entry.value.catch(() => this.latest.get(key) === entry && this.latest.delete(key));
    return { value: (await entry.value) as T, startedAt: entry.startedAt };
  }
}
