/** The workspace example: file tools in a sandboxed directory, recorded planner answers. */
export {
  bumpVersionPlanFile,
  copyFile,
  createTag,
  listFiles,
  plannerAnswersFile,
  readFile,
  releasePlanFile,
  runTests,
  workspaceAgent,
  writeFile,
} from './agent.ts';
export {
  OPS_FILE,
  type OpRecord,
  SEED_CONFIG,
  SEED_FILES,
  TAGS_DIR,
  WorkspaceError,
  appliedOps,
  inside,
  readOps,
  workspace,
  workspaceRoot,
} from './workspace.ts';
export { workspaceAgent as default } from './agent.ts';
