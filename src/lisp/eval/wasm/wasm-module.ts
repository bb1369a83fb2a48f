/**
 * The few bytes of the WebAssembly binary format that loop-wasm.ts needs: one module with
 * one exported function of f64 parameters returning an i32, f64 (and i64) locals, and one
 * exported page of memory. Opcodes are named as in the WebAssembly spec.
 */

/** A compiled module (opaque here). */
export type WasmModule = { readonly wasmModule: unique symbol };

/** An instance of a module of {@link moduleBytes} (its function `f`) or {@link fnModuleBytes} (`e`). */
export interface WasmInstance {
  exports: Record<string, (...args: number[]) => number>;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
  Memory: new (limits: { initial: number }) => { buffer: ArrayBuffer };
}

/** The host's WebAssembly, if it has one (not under `--jitless`). */
export const wasmApi: WasmApi | undefined = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let memory: { buffer: ArrayBuffer } | undefined;

/**
 * The one page of memory every module imports (as `i.m`), where a call leaves what it
 * returns besides its result; read right after the call (a module calls out only to the
 * evaluator's fuel check, never into another module). One for all: each memory reserves
 * gigabytes of address space, and a process has room for only so many.
 */
export function sharedMemory(): { buffer: ArrayBuffer } {
  return (memory ??= new wasmApi!.Memory({ initial: 1 }));
}

export const OP = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  drop: 0x1a,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  f64Store: 0x39,
  i32Const: 0x41,
  f64Const: 0x44,
  i32Eqz: 0x45,
  i32Ne: 0x47,
  f64Eq: 0x61,
  f64Ne: 0x62,
  f64Lt: 0x63,
  f64Gt: 0x64,
  f64Le: 0x65,
  f64Ge: 0x66,
  i32And: 0x71,
  i32RemS: 0x6f,
  f64ConvertI32S: 0xb7,
  i64RemS: 0x81,
  f64Abs: 0x99,
  f64Trunc: 0x9d,
  f64Add: 0xa0,
  f64Sub: 0xa1,
  f64Mul: 0xa2,
  f64Div: 0xa3,
  f64Min: 0xa4,
  f64Max: 0xa5,
  i64TruncF64S: 0xb0,
  f64ConvertI64S: 0xb9,
} as const;

/** `i32.trunc_sat_f64_s` (non-trapping: saturates, NaN gives 0). */
export const I32_TRUNC_SAT_F64_S = [0xfc, 0x02];

/** Block and value types. */
export const TYPE = { empty: 0x40, i32: 0x7f, i64: 0x7e, f64: 0x7c } as const;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

const f64Bytes = new DataView(new ArrayBuffer(8));

/** `f64.const x`, bit-exact (-0, infinities included). */
export function f64Const(x: number): number[] {
  const b = f64Bytes;
  b.setFloat64(0, x, true);
  return [
    OP.f64Const,
    b.getUint8(0),
    b.getUint8(1),
    b.getUint8(2),
    b.getUint8(3),
    b.getUint8(4),
    b.getUint8(5),
    b.getUint8(6),
    b.getUint8(7),
  ];
}

/**
 * The arrays one after the other, in one new array. Module bytes are assembled from many
 * pieces on every first run of a program; spreading them (`[...a, ...b]`) cost a first run
 * of a numeric program a large part of its code generation.
 */
export function concatBytes(...parts: ReadonlyArray<readonly number[]>): number[] {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Array<number>(n);
  let k = 0;
  for (const p of parts) for (let i = 0; i < p.length; i++) out[k++] = p[i]!;
  return out;
}

/** `i32.const b` for a small non-negative `b` (0 to 63: one byte of signed LEB128). */
export function i32Const(b: number): number[] {
  return [OP.i32Const, b];
}

/** `i32.const v` for any int32 `v` (signed LEB128). */
export function i32ConstOf(v: number): number[] {
  const out: number[] = [OP.i32Const];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** `f64.store` of the value on the stack at byte `offset` (the address pushed first is 0). */
export function f64StoreAt(offset: number, value: number[]): number[] {
  return [...i32Const(0), ...value, OP.f64Store, 3, ...uleb(offset)];
}

/** `i.m`, the one page of memory every module shares (see {@link sharedMemory}). */
const MEMORY_IMPORT = [1, 0x69, 1, 0x6d, 0x02, 0x00, 1];

function section(id: number, bytes: number[]): number[] {
  return concatBytes([id], uleb(bytes.length), bytes);
}

function vector(items: number[][]): number[] {
  return concatBytes(uleb(items.length), ...items);
}

function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

/**
 * A module exporting `f` (`params` f64 parameters, an i32 result, `locals` as
 * [count, type] groups, `body` its code without the final `end`) and importing `i.m`, the
 * shared page of memory.
 */
export function moduleBytes(
  params: number,
  locals: ReadonlyArray<readonly [number, number]>,
  body: number[],
): Uint8Array {
  const type = [0x60, ...vector(Array.from({ length: params }, () => [TYPE.f64])), 1, TYPE.i32];
  const code = concatBytes(vector(locals.map(([count, ty]) => [...uleb(count), ty])), body, [OP.end]);
  return new Uint8Array(
    concatBytes(
      [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      section(1, vector([type])),
      section(2, vector([MEMORY_IMPORT])),
      section(3, vector([[0]])),
      section(7, vector([[...name('f'), 0x00, 0]])),
      section(10, vector([concatBytes(uleb(code.length), code)])),
    ),
  );
}

/** `local.get i` / `local.set i`. */
export const localGet = (i: number): number[] => [OP.localGet, ...uleb(i)];
export const localSet = (i: number): number[] => [OP.localSet, ...uleb(i)];

/**
 * A module of a recursive fn: function 1 (`params` f64 parameters, an f64 result; `locals`
 * and `body` as in {@link moduleBytes}) may call itself and `i.r`, an imported f64 -> f64
 * (function 0), and reads and writes global 0, an f64. Exported: `e`, which takes the
 * params and the global's value, calls function 1 and leaves the global at byte 0 of
 * `i.m`, the shared page of memory; for a fn of two params, also `f` ({@link foldCode}).
 */
export function fnModuleBytes(
  params: number,
  locals: ReadonlyArray<readonly [number, number]>,
  body: number[],
): Uint8Array {
  const f64s = (n: number) => vector(Array.from({ length: n }, () => [TYPE.f64]));
  const types = [
    [0x60, ...f64s(params), 1, TYPE.f64],
    [0x60, 1, TYPE.f64, 1, TYPE.f64],
    [0x60, ...f64s(params + 1), 1, TYPE.f64],
  ];
  const code = concatBytes(
    vector(locals.filter(([count]) => count > 0).map(([count, ty]) => [...uleb(count), ty])),
    body,
    [OP.end],
  );
  // e(p0..pn-1, t): global = t; r = f(p...); m[0] = global; r
  const entry = [
    ...vector([]),
    ...localGet(params),
    0x24,
    0,
    ...Array.from({ length: params }, (_, i) => localGet(i)).flat(),
    0x10,
    1,
    ...i32Const(0),
    0x23,
    0,
    OP.f64Store,
    3,
    0,
    OP.end,
  ];
  // a fn of two params (and r): also `f`, the fold (see FOLD_BASE), of the same type as `e`
  const fold = params === 3 ? [foldCode()] : [];
  return new Uint8Array(
    concatBytes(
      [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      section(1, vector(types)),
      section(2, vector([MEMORY_IMPORT, [...name('i'), ...name('r'), 0x00, 1]])),
      section(3, vector([[0], [2], ...fold.map(() => [2])])),
      section(6, vector([[TYPE.f64, 0x01, ...f64Const(0), OP.end]])),
      section(7, vector([[...name('e'), 0x00, 2], ...fold.map(() => [...name('f'), 0x00, 3])])),
      section(
        10,
        vector([
          concatBytes(uleb(code.length), code),
          concatBytes(uleb(entry.length), entry),
          ...fold.map((c) => concatBytes(uleb(c.length), c)),
        ]),
      ),
    ),
  );
}

/**
 * Where a fold's items are (bytes of the shared page, after what the loops and fns use at
 * its start), and how many fit.
 */
export const FOLD_BASE = 8192;
export const FOLD_ITEMS = 4096;

/**
 * `f(acc, n, r, t)` of a two-param fn's module: `reduce`'s loop over the `n` numbers at
 * {@link FOLD_BASE}, as core's `foldArray` runs it: for each item one unit of fuel (its
 * `tick(1)`, `i.r` when the counter reaches 0), then `acc = body(acc, item, r)`. Global 0
 * starts at `t` and ends at byte 0 of the page; the result is the last `acc`.
 */
function foldCode(): number[] {
  const ticks = (...code: number[]) => [0x23, 0, ...code];
  const setTicks = [0x24, 0];
  return [
    ...vector([[1, TYPE.f64]]), // local 4: i
    ...localGet(3),
    ...setTicks,
    OP.block,
    TYPE.empty,
    OP.loop,
    TYPE.empty,
    ...localGet(4),
    ...localGet(1),
    OP.f64Ge,
    OP.brIf,
    1,
    ...ticks(...f64Const(1), OP.f64Sub),
    ...setTicks,
    ...ticks(...f64Const(0), OP.f64Le),
    OP.if,
    TYPE.empty,
    ...ticks(0x10, 0),
    ...setTicks,
    OP.end,
    ...localGet(0),
    ...localGet(4),
    ...I32_TRUNC_SAT_F64_S,
    ...i32Const(3),
    0x74 /* i32.shl */,
    0x2b /* f64.load */,
    3,
    ...uleb(FOLD_BASE),
    ...localGet(2),
    0x10,
    1,
    ...localSet(0),
    ...localGet(4),
    ...f64Const(1),
    OP.f64Add,
    ...localSet(4),
    OP.br,
    0,
    OP.end,
    OP.end,
    ...i32Const(0),
    0x23,
    0,
    OP.f64Store,
    3,
    0,
    ...localGet(0),
    OP.end,
  ];
}

/**
 * JS's `x % y` of the f64 locals x and y (y not 0), exactly: the i32 remainder of integers
 * that fit 32 bits (`k`: y is this int32 constant, written as such, so V8 divides by
 * multiplying), else the i64 remainder of integers below 2^53; other operands go to
 * `giveUp(cond, code)`, which runs `code` where `cond` (an i32) holds and gives up where
 * not, leaving an f64. The result is never -0 (JS's is for a negative dividend; the JS
 * code cleans it to 0).
 */
export function remainder(
  x: number,
  y: number,
  k: number | undefined,
  giveUp: (cond: number[], code: number[]) => number[],
): number[] {
  const int32 = (v: number) => [...localGet(v), ...I32_TRUNC_SAT_F64_S, OP.f64ConvertI32S, ...localGet(v), OP.f64Eq];
  const exact = (v: number) => [
    ...localGet(v),
    OP.f64Trunc,
    ...localGet(v),
    OP.f64Eq,
    ...localGet(v),
    OP.f64Abs,
    ...f64Const(2 ** 53),
    OP.f64Lt,
    OP.i32And,
  ];
  const divisor = k === undefined ? [...localGet(y), ...I32_TRUNC_SAT_F64_S] : i32ConstOf(k);
  const small = [...localGet(x), ...I32_TRUNC_SAT_F64_S, ...divisor, OP.i32RemS, OP.f64ConvertI32S];
  const wide = giveUp(
    [...exact(x), ...exact(y), OP.i32And],
    [...localGet(x), OP.i64TruncF64S, ...localGet(y), OP.i64TruncF64S, OP.i64RemS, OP.f64ConvertI64S],
  );
  const fits = k === undefined ? [...int32(x), ...int32(y), OP.i32And] : int32(x);
  return [...fits, OP.if, TYPE.f64, ...small, OP.else, ...wide, OP.end];
}
