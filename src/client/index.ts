/**
 * The client library: start and drive missions and plans from your own code. The CLI
 * and the web console use these same functions.
 *
 * @module
 */
export * from './navigator-client.ts';
export { RUN_KINDS, RUN_STATUSES } from './runs.ts';
export * from './mission/client.ts';
export { type ResumeOptions, resumeMission } from './mission/resume.ts';
export * from './plan/client.ts';
export * from './mission/schedules.ts';
export * as missionMessages from '../workflows/mission/messages.ts';
export type * from '../workflows/mission/contract.ts';
export { auditMission, type AuditReport } from '../audit/mission/audit.ts';
export { auditPlan, type PlanAuditReport } from '../audit/plan/audit.ts';
export { connectClient, resolveTarget, type TemporalTarget } from '../temporal/connection.ts';
export {
  DEFAULT_QUERY_TIMEOUT_MS,
  RunReader,
  type RunReaderOptions,
  WorkerUnavailableError,
  NotRunYetError,
  type HistoryState,
  type PollerSeen,
  readerOf,
} from '../history/reader.ts';
export { HistoryReplayError } from '../history/replay.ts';
export {
  StartRefused,
  type StartRefusedCode,
  type StartCheck,
  type ServedAgent,
  type ServedOnQueue,
  checkStart,
  servedAgents,
  announceAgents,
} from './served-agents.ts';
