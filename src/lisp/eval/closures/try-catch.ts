/** `try` / `catch` / `finally`: what is caught, what always propagates, and the value a catch clause binds. */
import type { CatchClause } from '../../analyzer/nodes.ts';
import { PtcError } from '../../errors.ts';
import { type Value, kw, map as pmap } from '../../values.ts';
import { exInfo } from '../../core/builtins.ts';
import type { Evaluator } from '../index.ts';
import { SUSPEND, ThrowSignal } from '../signals.ts';
import type { ToolFailure } from '../../tool-failure.ts';
import type { Code } from './code.ts';

const K_TYPE = kw('type');
const K_TOOL = kw('tool');
const K_CLASS = kw('class');

export interface CCatch {
  match: CatchClause['match'];
  slot: number;
  body: Code;
}

export function tryNode(body: Code, catches: CCatch[], fin: Code | null, f: Value[], ev: Evaluator): Value {
  let result: Value;
  try {
    result = body(f, ev);
  } catch (e) {
    const clause = catchClause(catches, e);
    if (!clause) {
      if (fin && runsFinally(e)) fin(f, ev);
      throw e;
    }
    try {
      f[clause.slot] = exceptionValue(e);
      result = clause.body(f, ev);
    } catch (e2) {
      if (fin && runsFinally(e2)) fin(f, ev);
      throw e2;
    }
  }
  if (fin) fin(f, ev);
  return result;
}

export function runsFinally(e: unknown): boolean {
  if (e === SUSPEND) return false;
  if (e instanceof PtcError && e.code === 'limit_exceeded') return false;
  if (e instanceof RangeError) return false;
  return true;
}

export const UNCATCHABLE = new Set(['limit_exceeded', 'tool_call_limit_exceeded']);

export function catchClause(catches: CCatch[], e: unknown): CCatch | undefined {
  if (catches.length === 0) return undefined;
  if (e instanceof ThrowSignal) return catches.find((c) => c.match !== 'arithmetic');
  if (e instanceof PtcError && !UNCATCHABLE.has(e.code)) {
    return catches.find((c) => c.match === 'all' || (c.match === 'arithmetic' && e.code === 'arithmetic_error'));
  }
  return undefined;
}

export function exceptionValue(e: unknown): Value {
  if (e instanceof ThrowSignal) return e.value;
  const p = e as PtcError;
  const failure = p.code === 'tool_error' ? (p.details?.failure as ToolFailure | undefined) : undefined;
  if (failure) {
    // a tool's failure: the message is the service's or the person's reason alone, the rest is data
    const data = pmap([
      [K_TYPE, kw(p.code)],
      [K_TOOL, failure.tool],
      [K_CLASS, kw(failure.class)],
    ]);
    return exInfo(failure.reason, data, [[K_TYPE, kw(p.code)]]);
  }
  return exInfo(p.message, pmap([[K_TYPE, kw(p.code)]]), [[K_TYPE, kw(p.code)]]);
}
