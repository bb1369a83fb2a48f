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
}

/** Median of `iterations` timed runs of `fn`, after `warmup` untimed runs. */
export async function medianMs(fn: () => unknown | Promise<unknown>, iterations = 15, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
