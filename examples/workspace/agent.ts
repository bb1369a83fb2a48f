/**
 * The workspace agent of the original plan specification: files in a sandboxed
 * directory. Reads are `read_only`; writing is `local` but marked destructive (it
 * overwrites), so a plan step using it waits for approval; copying is not destructive
 * (it is how a plan keeps a backup). A release runs the project's tests (`run_tests`,
 * read-only) and tags the version (`create_tag`).
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/navigator/index.ts';
import { workspace } from './workspace.ts';

export const plannerAnswersFile = fileURLToPath(new URL('./planner-answers.json', import.meta.url));
export const bumpVersionPlanFile = fileURLToPath(new URL('./bump-version.plan.json', import.meta.url));
export const releasePlanFile = fileURLToPath(new URL('./release.plan.json', import.meta.url));

export const readFile = defineTool({
  name: 'read_file',
  description: 'Reads a text file of the workspace.',
  input: z.object({ path: z.string().describe('path relative to the workspace') }),
  output: z.object({ path: z.string(), content: z.string() }),
  sideEffect: 'read_only',
  handler: ({ path }) => workspace.read(path),
});

export const listFiles = defineTool({
  name: 'list_files',
  description: 'Lists the files of the workspace (or of one directory in it).',
  input: z.object({ dir: z.string().optional().describe('directory relative to the workspace; default: all') }),
  output: z.object({ files: z.array(z.string()) }),
  sideEffect: 'read_only',
  handler: ({ dir }) => workspace.list(dir),
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Writes (creates or overwrites) a text file of the workspace.',
  input: z.object({ path: z.string(), content: z.string() }),
  output: z.object({ path: z.string(), bytes: z.number() }),
  sideEffect: 'local',
  destructive: true,
  handler: ({ path, content }, { idempotencyKey }) => workspace.write(path, content, idempotencyKey),
});

export const copyFile = defineTool({
  name: 'copy_file',
  description: 'Copies a file of the workspace to another path (for backups).',
  input: z.object({ from: z.string(), to: z.string() }),
  output: z.object({ from: z.string(), to: z.string(), bytes: z.number() }),
  sideEffect: 'local',
  handler: ({ from, to }, { idempotencyKey }) => workspace.copy(from, to, idempotencyKey),
});

export const runTests = defineTool({
  name: 'run_tests',
  description:
    "Runs the project's tests (package.json has a version, src/version.ts matches it, CHANGELOG.md has an entry for it); changes nothing.",
  input: z.object({}),
  output: z.object({
    passed: z.number(),
    failed: z.number(),
    tests: z.array(z.object({ name: z.string(), ok: z.boolean(), message: z.string().optional() })),
  }),
  sideEffect: 'read_only',
  handler: () => workspace.test(),
});

export const createTag = defineTool({
  name: 'create_tag',
  description: "Creates a release tag (e.g. v1.5.0) of the project's current version; an existing tag is refused.",
  input: z.object({ name: z.string().describe('tag name, e.g. v1.5.0'), message: z.string() }),
  output: z.object({ tag: z.string(), version: z.string().nullable() }),
  sideEffect: 'local',
  handler: ({ name, message }, { idempotencyKey }) => workspace.tag(name, message, idempotencyKey),
});

export const workspaceAgent = defineAgent({
  name: 'workspace',
  description: 'Manages the files of a small workspace.',
  prompt: 'Manage the files of the workspace: {{request}}',
  input: z.object({ request: z.string().default('list the files of the workspace') }),
  output: z.unknown(),
  tools: [readFile, listFiles, writeFile, copyFile, runTests, createTag],
});
