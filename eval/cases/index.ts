/** The evaluation suite: eighteen missions, by area. */
import type { EvalCase } from '../case.ts';
import { dataCases } from './data.ts';
import { decisionCases } from './decisions.ts';
import { effectCases } from './effects.ts';
import { shapeCases } from './shapes.ts';

export const cases: readonly EvalCase[] = [...dataCases, ...effectCases, ...decisionCases, ...shapeCases];
