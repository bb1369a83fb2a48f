/**
 * JS functions made from generated source (loop-codegen.ts, fn-codegen.ts), cached by
 * their parameters and source (WebAssembly modules, by their bytes: wasm/instances.ts). A
 * program is compiled anew on every run, and a function from a fresh `new Function` starts
 * cold each time (interpreted, then optimised after thousands of calls); the one made for
 * the same source keeps V8's feedback and optimised code. Bounded (bounded-cache.ts).
 */
import { BoundedCache, cacheGeneration } from '../../bounded-cache.ts';

const bySource = new BoundedCache<unknown>(2000);

/**
 * Whether the function for these parameters and source was made already: warm code for
 * it may exist (a program run before, or one of the same shape), where a new one starts
 * cold (see loop-codegen.ts and fn-codegen.ts: they wait before making a new one).
 */
export function isGenerated(params: readonly string[], source: string): boolean {
  return bySource.has(`${params.join(',')}\n${source}`);
}

/** `new Function(...params, source)`, or the one already made for the same parameters and source. */
export function generatedFunction<F>(params: readonly string[], source: string): F {
  return bySource.get(`${params.join(',')}\n${source}`, () => {
    const g = cacheGeneration();
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from our own templates, see the module comment
    return new Function(...params, g === 0 ? source : `${source}\n// ${g}`);
  }) as F;
}
