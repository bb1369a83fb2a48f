/** Workflow entry points, bundled for the worker. Nothing Node-only may be imported here. */
export { navigatorMission } from './mission/workflow.ts';
export { planExecution } from './plan/workflow.ts';
export { navigatorAgents } from './agents-registry.ts';
