/**
 * What a numeric loop's generated iterations (JS: js/loop-source.ts, WebAssembly:
 * wasm/loop-wasm.ts) stop on, and the fuel one iteration can take at most: the protocol
 * both back-ends share with their driver (loop-codegen.ts), kept here so neither imports
 * the other.
 */
import type { Node } from '../analyzer/nodes.ts';

/** What the generated iterations stopped on (the function's result). */
export const DONE = 0;
export const LOW = 1;
export const BAILED = 2;

/** The most units one iteration of `n` can use (its longest path). */
export function longestPath(n: Node): number {
  switch (n.kind) {
    case 'op1':
      return 1 + longestPath(n.a);
    case 'op2':
      return 1 + longestPath(n.a) + longestPath(n.b);
    case 'if':
      return 1 + longestPath(n.test) + Math.max(longestPath(n.then), longestPath(n.else));
    case 'recur':
    case 'callCore':
      return 1 + n.args.reduce((sum, a) => sum + longestPath(a), 0);
    default:
      return 1;
  }
}
