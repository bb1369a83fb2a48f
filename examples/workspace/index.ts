/** The workspace example: file tools in a sandboxed directory, recorded planner answers. */
export { bumpVersionPlanFile, copyFile, listFiles, plannerAnswersFile, readFile, workspaceAgent, writeFile } from './agent.ts';
export { OPS_FILE, SEED_CONFIG, WorkspaceError, inside, readOps, workspace, workspaceRoot } from './workspace.ts';
export { workspaceAgent as default } from './agent.ts';
