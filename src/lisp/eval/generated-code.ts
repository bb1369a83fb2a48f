/**
 * JS functions made from generated source (loop-codegen.ts, fn-codegen.ts), cached by
 * their parameters and source. A program is compiled anew on every run, and a function
 * from a fresh `new Function` starts cold each time (interpreted, then optimised after
 * thousands of calls); the one made for the same source keeps V8's feedback and
 * optimised code. Bounded: the cache is emptied when it holds {@link MAX_CACHED}.
 */
const bySource = new Map<string, unknown>();
const MAX_CACHED = 2000;

/** `new Function(...params, source)`, or the one already made for the same parameters and source. */
export function generatedFunction<F>(params: readonly string[], source: string): F {
  const key = `${params.join(',')}\n${source}`;
  let fn = bySource.get(key);
  if (fn === undefined) {
    fn = new Function(...params, source);
    if (bySource.size >= MAX_CACHED) bySource.clear();
    bySource.set(key, fn);
  }
  return fn as F;
}
