/** One line of `npm run bench` output. */
export interface BenchRow {
  name: string;
  /** median wall time of one iteration, ms */
  median_ms: number;
  /** the same work in hand-written JS (or the reference setup), measured in the same run */
  baseline_ms?: number;
  /** median_ms / baseline_ms */
  ratio?: number;
  /** anything else worth printing: throughput, bytes, memory */
  note?: string;
  /**
   * set when the figure is past the bound the bench holds it to (a regression): printed
   * under the table, and `npm run bench` exits 1
   */
  failed?: string;
}

/**
 * Median of at least `iterations` timed runs of `fn`, after at least `warmup` untimed
 * runs; with `minMs`, the warm-up and the timed runs each also last at least that long.
 * `minMs` is for comparing interpreters on short programs: a fixed count of 3 warm-ups
 * is 3 ms for a 1 ms program, and V8's optimising compiler takes 10-25 ms per function
 * on a loaded 2-core machine, so a short row's median caught its first runs in
 * unoptimised code, on one side or the other depending on which of its functions
 * earlier rows had already made hot.
 */
export async function medianMs(
  fn: () => unknown | Promise<unknown>,
  iterations = 15,
  warmup = 3,
  minMs = 0,
): Promise<number> {
  const warm = performance.now();
  for (let i = 0; i < warmup || performance.now() - warm < minMs; i++) await fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < iterations || performance.now() - start < minMs) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
