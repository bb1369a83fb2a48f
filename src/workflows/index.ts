/** Workflow entry points, bundled for the worker. Nothing Node-only may be imported here. */
export { navigatorMission } from './navigator-mission.ts';
export { planExecution } from './plan-execution.ts';
export { navigatorAgents } from './agents-registry.ts';
