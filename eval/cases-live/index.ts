/** The live suite (issue 43): twelve missions and four plans written for live runs, before any prompt change of that issue. */
import type { EvalCase } from '../case.ts';
import type { PlanEvalCase } from '../plan-case.ts';
import { liveMissionCases } from './missions.ts';
import { livePlanCases } from './plans.ts';

export { liveMissionCases, livePlanCases };
export const liveCases: ReadonlyArray<EvalCase | PlanEvalCase> = [...liveMissionCases, ...livePlanCases];
