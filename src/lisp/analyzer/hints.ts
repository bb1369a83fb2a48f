/** Hints for names that are not what the program thinks they are. */
import { unknownNameHint } from '../core/index.ts';
import { methodValueHint } from '../core/interop.ts';

export function specialValueHint(name: string): string | undefined {
  if (name === 'and' || name === 'or') return `wrap it in a function: #(${name} %1 %2)`;
  if (name === 'pmap') return 'call it directly: (pmap f coll)';
  return undefined;
}

const SUGGEST: Record<string, string> = {
  print: 'use println',
  prn: 'use (println (pr-str x))',
  atom: 'there are no atoms; use loop/recur or reduce to carry state',
  'swap!': 'there are no atoms; use loop/recur or reduce',
  'reset!': 'there are no atoms; use loop/recur or reduce',
  deref: 'there are no atoms or refs',
};

export function undefinedHint(names: string[]): string | undefined {
  for (const n of names) {
    if (Object.hasOwn(SUGGEST, n)) return SUGGEST[n];
    const method = methodValueHint(n);
    if (method) return names.length > 1 ? `${n}: ${method}` : method;
    const h = unknownNameHint(n);
    if (h) return names.length > 1 ? `${n}: ${h}` : h;
  }
  if (names.some((n) => !n.includes('/')))
    return 'define it with (def name value) or bind it with let; (or x default) treats an undefined x as nil';
  return undefined;
}
