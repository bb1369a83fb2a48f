/** The evaluation suite: twelve missions, by area. */
import type { EvalCase } from '../case.ts';
import { dataCases } from './data.ts';
import { decisionCases } from './decisions.ts';
import { effectCases } from './effects.ts';

export const cases: readonly EvalCase[] = [...dataCases, ...effectCases, ...decisionCases];
