/**
 * The analyzer: reader {@link Form}s → typed {@link Node}s, with every static check done
 * before anything runs: special-form shapes and arities, `recur` only in tail position,
 * undefined symbols, unknown tools, the task-id rule, `#()` placeholders and `where`
 * operators. Locals are resolved to frame slots; functions list the locals they capture.
 *
 * Decisions are documented in docs/language.md.
 * The work is split by area: analyzer.ts (dispatch, special forms, bindings), functions.ts,
 * control.ts, effects.ts (tools, tasks, where), with scope.ts, syntax.ts and hints.ts.
 * @module
 */
import type { Form } from '../form.ts';
import type { Program } from './nodes.ts';
import { Analyzer, type AnalyzeOptions } from './analyzer.ts';

export type * from './nodes.ts';
export type { AnalyzeOptions } from './analyzer.ts';
export { SPECIAL_FORMS, literalValue } from './syntax.ts';

/** Analyzes a whole program. @throws PtcError (phase `analyze`) */
export function analyze(forms: Form[], options: AnalyzeOptions = {}): Program {
  return new Analyzer(options).program(forms);
}
