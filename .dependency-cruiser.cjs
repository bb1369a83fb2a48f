/**
 * The layering of the house (issue 40), checked by dependency-cruiser in `npm test`
 * (test/house/layering.test.ts) and by `npm run layering`. The words are those of
 * docs/glossary.md; the folders those of docs/layout.md.
 *
 * Rules:
 * - no folder-level import cycles;
 * - workflow code imports no activities (the proxies are typed by the contracts:
 *   MissionActivities, PlanActivities);
 * - nothing imports the embedded server (src/devserver) but tests, benchmarks, the evaluation
 *   harness and the commands that start one (`navigator dev`, `navigator demo`);
 * - the CLI and the console read and drive missions and plans only through src/client, plus
 *   src/kernel, their own folders, and a short list of pure helpers (UI_HELPERS below).
 *
 * What still breaks a rule is listed in UI_EXCEPTIONS, each with why; the list should
 * only shrink.
 */

/**
 * Modules the CLI and the console may use besides the client, and why:
 * - history/: reading a run (the reader the client itself uses, WorkerUnavailableError, the
 *   value hash shown beside args), Temporal-free apart from the client's own calls;
 * - workflows/{mission,plan}/contract.ts, messages.ts and workflows/approvers.ts: the wire
 *   contract (types, zod schemas, update and query names, who may approve) that the
 *   client's answers are made of;
 * - plans/: the plan language (schema, validate, scheduler), pure: the CLI checks a plan
 *   file before anything starts;
 * - navigator/prompt/progress.ts: the checklist text the model sees, shown to people as is;
 * - temporal/connection.ts: Temporal's environment configuration (address, namespace, TLS);
 * - codec/secrets.ts: the rules for secrets the console and the codec server share.
 */
const UI_HELPERS = [
  '^src/history/',
  '^src/workflows/(mission|plan)/(contract|messages)\\.ts$',
  '^src/workflows/approvers\\.ts$',
  '^src/plans/',
  '^src/navigator/prompt/progress\\.ts$',
  '^src/temporal/connection\\.ts$',
  '^src/codec/secrets\\.ts$',
];

/**
 * Files of the CLI and the console that may import more, and why. To shrink: each should
 * reach what it needs through src/client.
 */
const UI_EXCEPTIONS = [
  // Commands that run in this process what they are named after: a worker, the embedded
  // server, a PTC-Lisp program (`eval`), a pass in library mode (`agent run`), the codec
  // server, the console, the payload store's gc.
  '^src/cli/commands/(dev|demo|demo-plan|demo-report|demo-workers|demo-program|worker|agent|eval|codec-server|console|store)\\.ts$',
  // `navigator history/audit/replay` and `plan audit` (plan/read.ts): the audit's own report;
  // `plan validate` (plan/start.ts): the plan's agent registry (`--agents`, to validate
  // offline); the client exports only auditMission/auditPlan.
  '^src/cli/commands/mission/history\\.ts$',
  '^src/cli/commands/plan/(read|start)\\.ts$',
  // The checks before a start load the agents module (worker/agents.ts) to refuse a typo
  // before any workflow starts; input.ts loads a user's module (--agents, --codec).
  '^src/cli/(before-start|input)\\.ts$',
  // The console server assembles its parts: the agent registry (worker/agents.ts), the codec,
  // the audit's replay worker; explain words a step by its agent's tools.
  '^src/console/(server|agents|audits|explain)\\.ts$',
  '^src/console/plan/new-step\\.ts$',
  // Cards that word a tool's call by the tool's own definition (navigator/tool.ts).
  '^src/console/(plan-summary|effect-cards)\\.ts$',
  // `run` prints the console's link, found in the per-machine cache (machine/folders.ts).
  '^src/cli/console-link\\.ts$',
  // The pass view reads programs, tool calls and answers by value replay (audit/mission);
  // the mission page's context (ConsoleContext) carries the agent registry's type.
  '^src/console/mission/(passes|pages)\\.ts$',
];

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders import each other one way; a cycle means a module sits in the wrong folder.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'workflows-import-no-activities',
      comment: 'Workflow code is typed by the contracts (MissionActivities, PlanActivities), never by the activities.',
      severity: 'error',
      from: { path: '^src/workflows/' },
      to: { path: '^src/activities/' },
    },
    {
      name: 'devserver-only-tests-and-dev',
      comment: 'The embedded server is for tests, benchmarks, the evaluation harness and `navigator dev`/`demo`.',
      severity: 'error',
      from: { pathNot: '^(test/|bench/|eval/|src/devserver/|src/cli/commands/(dev|demo)\\.ts$)' },
      to: { path: '^src/devserver/' },
    },
    {
      name: 'ui-through-client',
      comment: 'The CLI and the console use src/client, src/kernel, their own folder and UI_HELPERS.',
      severity: 'error',
      from: { path: '^src/(cli|console)/', pathNot: UI_EXCEPTIONS },
      to: { path: '^src/', pathNot: ['^src/(cli|console|client|kernel)/', ...UI_HELPERS] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|\\.d\\.c?ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
