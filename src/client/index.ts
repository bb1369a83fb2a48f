/**
 * The client library: start and drive plans (and, through the workflow's messages,
 * missions) from your own code. The CLI and the web console use the same functions.
 *
 * @module
 */
export * from './plans.ts';
export * as missionMessages from '../workflows/messages.ts';
export type * from '../workflows/contract.ts';
export { auditMission, type AuditReport } from '../audit/index.ts';
export { auditPlan, type PlanAuditReport } from '../audit/plans.ts';
export { connectClient, resolveTarget, type TemporalTarget } from '../temporal/connection.ts';
