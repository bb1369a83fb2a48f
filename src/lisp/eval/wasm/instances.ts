/**
 * WebAssembly instances (loop-wasm.ts, fn-wasm.ts) cached by their module's bytes, as
 * js/generated-code.ts caches generated JS by its source: a module compiled once keeps the
 * machine code V8 tiered up for it. Bounded (bounded-cache.ts).
 */
import { BoundedCache } from '../../bounded-cache.ts';
import { type WasmInstance, sharedMemory, wasmApi } from './wasm-module.ts';

const byBytes = new BoundedCache<WasmInstance>(500);

/** The bytes as a string, one character per byte (spreading them into fromCharCode took ~100 µs for 3 KB, Node's latin1 2). */
const bytesKey = (bytes: Uint8Array): string => {
  if (typeof Buffer !== 'undefined')
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let s = '';
  for (let i = 0; i < bytes.length; i += 4096)
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096) as unknown as number[]);
  return s;
};

/**
 * The instance of the WebAssembly module of `bytes`, compiled and instantiated once
 * (Liftoff, then tiered up by V8 as it runs), with the shared memory and `imports` (`i.*`).
 */
export function wasmInstance(bytes: Uint8Array, imports: Record<string, unknown> = {}): WasmInstance {
  return byBytes.get(
    bytesKey(bytes),
    () => new wasmApi!.Instance(new wasmApi!.Module(bytes), { i: { ...imports, m: sharedMemory() } }),
  );
}
