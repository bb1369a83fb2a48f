/**
 * JS functions made from generated source (loop-codegen.ts, fn-codegen.ts), cached by
 * their parameters and source, and WebAssembly modules (loop-wasm.ts) by their bytes. A program is compiled anew on every run, and a function
 * from a fresh `new Function` starts cold each time (interpreted, then optimised after
 * thousands of calls); the one made for the same source keeps V8's feedback and
 * optimised code. Bounded (bounded-cache.ts).
 */
import { BoundedCache, cacheGeneration } from '../bounded-cache.ts';
import { type WasmInstance, sharedMemory, wasmApi } from './wasm-module.ts';

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
    return new Function(...params, g === 0 ? source : `${source}\n// ${g}`);
  }) as F;
}

const byBytes = new BoundedCache<WasmInstance>(500);

/** The bytes as a string, one character per byte (spreading them into fromCharCode took ~100 µs for 3 KB, Node's latin1 2). */
const bytesKey = (bytes: Uint8Array): string => {
  if (typeof Buffer !== 'undefined') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let s = '';
  for (let i = 0; i < bytes.length; i += 4096) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096) as unknown as number[]);
  return s;
};

/**
 * The instance of the WebAssembly module of `bytes`, compiled and instantiated once
 * (Liftoff, then tiered up by V8 as it runs), with the shared memory and `imports` (`i.*`).
 */
export function wasmInstance(bytes: Uint8Array, imports: Record<string, unknown> = {}): WasmInstance {
  return byBytes.get(bytesKey(bytes), () => new wasmApi!.Instance(new wasmApi!.Module(bytes), { i: { ...imports, m: sharedMemory() } }));
}
