/**
 * The workspace example: a sandboxed directory (escapes by `..`, absolute paths and
 * symbolic links refused), file tools, changes applied once per idempotency key, and the
 * recorded planner answers: the bump-version plan parses into valid steps, runs against
 * the workspace, and is the same plan as the ready-made plan file.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exampleAgents } from '../../examples/index.ts';
import {
  OPS_FILE,
  SEED_CONFIG,
  WorkspaceError,
  appliedOps,
  bumpVersionPlanFile,
  copyFile,
  createTag,
  listFiles,
  plannerAnswersFile,
  readFile,
  readOps,
  releasePlanFile,
  runTests,
  workspace,
  workspaceAgent,
  workspaceRoot,
  writeFile,
} from '../../examples/workspace/index.ts';
import { createScriptedModel } from '../../src/llm/index.ts';
import type { NavigatorTool } from '../../src/navigator/index.ts';
import { parsePlanAnswer, plannerPrompt } from '../../src/plans/planner.ts';
import { parseRecoveryAnswer, recoveryPrompt } from '../../src/plans/recovery-prompt.ts';
import { Plan, type Step, StepSpec } from '../../src/plans/schema.ts';

const REQUEST = 'bump the version in config.json to 2.0.0 and keep a backup';
const NEW_CONFIG = '{\n  "name": "demo-app",\n  "version": "2.0.0"\n}\n';

let root: string;
let outside: string;
beforeEach(() => {
  root = join(mkdtempSync(join(tmpdir(), 'ws-test-')), 'workspace');
  outside = mkdtempSync(join(tmpdir(), 'ws-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'top secret');
  process.env.WORKSPACE_DIR = root;
  delete process.env.NAVIGATOR_MODEL;
});
afterEach(() => {
  delete process.env.WORKSPACE_DIR;
  rmSync(join(root, '..'), { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** Calls a tool as a plan step would: args checked by its schema, an idempotency key given. */
async function call(
  tool: NavigatorTool,
  args: unknown,
  key = `key-${tool.name}-${JSON.stringify(args)}`,
): Promise<unknown> {
  return tool.handler(tool.input.parse(args), {
    idempotencyKey: key,
    taskId: null,
    signal: new AbortController().signal,
  });
}

const text = (path: string) => readFileSync(join(root, path), 'utf8');
/** The files a new workspace starts with, as list_files gives them. */
const SEEDED = ['CHANGELOG.md', 'README.md', 'config.json', 'package.json', 'src/version.ts'];

describe('the workspace directory', () => {
  it('is created on first use and seeded with config.json, README.md and the release files', () => {
    expect(existsSync(root)).toBe(false);
    expect(workspaceRoot()).toBe(root);
    expect(JSON.parse(text('config.json'))).toEqual({ name: 'demo-app', version: '1.4.2' });
    expect(SEED_CONFIG).toEqual({ name: 'demo-app', version: '1.4.2' });
    expect(text('README.md')).toMatch(/^# demo-app/);
  });

  it('is not reseeded when it has files', () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'notes.txt'), 'mine');
    workspaceRoot();
    expect(existsSync(join(root, 'config.json'))).toBe(false);
  });

  it('defaults to .navigator/workspace under the current directory', () => {
    delete process.env.WORKSPACE_DIR;
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), 'ws-cwd-'));
    process.chdir(dir);
    try {
      expect(workspaceRoot()).toBe(join(process.cwd(), '.navigator', 'workspace'));
      expect(existsSync(join(dir, '.navigator', 'workspace', 'config.json'))).toBe(true);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('paths that escape the workspace are refused', () => {
  it.each([
    ['../x', '../x: escapes the workspace'],
    ['a/../../x', 'a/../../x: escapes the workspace'],
    ['/etc/passwd', '/etc/passwd: absolute paths are not allowed; use a path relative to the workspace'],
    ['', 'path must be a non-empty relative path'],
    ['.', '.: is the workspace itself, not a file in it'],
    [OPS_FILE, `${OPS_FILE}: is the workspace's operation log`],
  ])('%j', async (path, message) => {
    for (const attempt of [
      () => call(readFile, { path }),
      () => call(writeFile, { path, content: 'x' }),
      () => call(copyFile, { from: 'config.json', to: path }),
    ]) {
      await expect(attempt()).rejects.toThrow(new WorkspaceError(message));
    }
  });

  it('a symbolic link to a directory or a file outside', async () => {
    workspaceRoot();
    symlinkSync(outside, join(root, 'elsewhere'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'secret_link'));
    await expect(call(readFile, { path: 'elsewhere/secret.txt' })).rejects.toThrow(
      'elsewhere/secret.txt: leads outside the workspace through a symbolic link',
    );
    await expect(call(readFile, { path: 'secret_link' })).rejects.toThrow(
      'secret_link: leads outside the workspace through a symbolic link',
    );
    await expect(call(writeFile, { path: 'elsewhere/new.txt', content: 'x' })).rejects.toThrow(WorkspaceError);
    await expect(call(copyFile, { from: 'secret_link', to: 'copied.txt' })).rejects.toThrow(WorkspaceError);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(existsSync(join(root, 'copied.txt'))).toBe(false);
    // neither is listed, nor followed
    expect(await call(listFiles, {})).toEqual({ files: SEEDED });
    await expect(call(listFiles, { dir: 'elsewhere' })).rejects.toThrow(WorkspaceError);
  });

  it('a dangling symbolic link pointing outside (a write would create its target)', async () => {
    workspaceRoot();
    symlinkSync(join(outside, 'planted.txt'), join(root, 'planted'));
    await expect(call(writeFile, { path: 'planted', content: 'x' })).rejects.toThrow(
      'planted: leads through a symbolic link that points nowhere',
    );
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });

  it('names that merely start with dots, and links that stay inside, are fine', async () => {
    expect(await call(writeFile, { path: '..notes', content: 'dots' })).toEqual({ path: '..notes', bytes: 4 });
    symlinkSync(join(root, 'config.json'), join(root, 'alias.json'));
    expect(await call(readFile, { path: 'alias.json' })).toEqual({ path: 'alias.json', content: text('config.json') });
    expect(await call(listFiles, {})).toEqual({ files: ['..notes', ...SEEDED, 'alias.json'].sort() });
  });
});

describe('the file tools', () => {
  it('are declared with their side-effect class; only write_file is destructive', () => {
    expect(workspaceAgent.tools.map((t) => [t.name, t.sideEffect, t.destructive])).toEqual([
      ['read_file', 'read_only', false],
      ['list_files', 'read_only', false],
      ['write_file', 'local', true],
      ['copy_file', 'local', false],
      ['run_tests', 'read_only', false],
      ['create_tag', 'local', false],
    ]);
  });

  it('read, list, write (creating directories) and copy', async () => {
    expect(await call(readFile, { path: 'config.json' })).toEqual({
      path: 'config.json',
      content: text('config.json'),
    });
    expect(await call(writeFile, { path: 'docs/ünïcode.md', content: 'héllo' })).toEqual({
      path: 'docs/ünïcode.md',
      bytes: 6,
    });
    expect(await call(copyFile, { from: 'config.json', to: 'backup/config.json.bak' })).toEqual({
      from: 'config.json',
      to: 'backup/config.json.bak',
      bytes: text('config.json').length,
    });
    expect(text('backup/config.json.bak')).toBe(text('config.json'));
    expect(await call(listFiles, {})).toEqual({
      files: [...SEEDED, 'backup/config.json.bak', 'docs/ünïcode.md'].sort(),
    });
    expect(await call(listFiles, { dir: 'docs' })).toEqual({ files: ['docs/ünïcode.md'] });
    expect(existsSync(join(root, OPS_FILE))).toBe(true); // there, but never listed
  });

  it('say clearly what is missing', async () => {
    await expect(call(readFile, { path: 'nope.txt' })).rejects.toThrow(new WorkspaceError('nope.txt: no such file'));
    await expect(call(readFile, { path: 'docs' })).rejects.toThrow('docs: no such file');
    await expect(call(listFiles, { dir: 'docs' })).rejects.toThrow(new WorkspaceError('docs: no such directory'));
    await expect(call(copyFile, { from: 'nope.txt', to: 'b.txt' })).rejects.toThrow(
      new WorkspaceError('nope.txt: no such file'),
    );
    mkdirSync(join(root, 'dir'));
    await expect(call(writeFile, { path: 'dir', content: 'x' })).rejects.toThrow(
      new WorkspaceError('dir: is a directory'),
    );
    expect(appliedOps()).toEqual([]);
  });
});

describe('changes are applied once per idempotency key', () => {
  it('a repeated write with the same key returns the first result and does not write again', async () => {
    const first = await call(writeFile, { path: 'a.txt', content: 'one' }, 'plan-1/write_a');
    writeFileSync(join(root, 'a.txt'), 'changed by someone else');
    const again = await call(writeFile, { path: 'a.txt', content: 'one' }, 'plan-1/write_a');
    expect(again).toEqual(first);
    expect(text('a.txt')).toBe('changed by someone else');
    expect(appliedOps()).toEqual([
      {
        key: 'plan-1/write_a',
        operation: 'write_file',
        args: { path: 'a.txt', content: 'one' },
        outcome: 'applied',
        result: { path: 'a.txt', bytes: 3 },
        at: expect.any(String),
      },
    ]);
    expect(readOps().map((r) => `${r.key}:${r.outcome}`)).toEqual([
      'plan-1/write_a:applied',
      'plan-1/write_a:deduplicated',
    ]);
  });

  it('another key is another change; copies are deduplicated too', async () => {
    await call(writeFile, { path: 'a.txt', content: 'one' }, 'k1');
    await call(writeFile, { path: 'a.txt', content: 'two' }, 'k2');
    expect(text('a.txt')).toBe('two');
    await call(copyFile, { from: 'a.txt', to: 'a.bak' }, 'k3');
    await call(writeFile, { path: 'a.txt', content: 'three' }, 'k4');
    await call(copyFile, { from: 'a.txt', to: 'a.bak' }, 'k3');
    expect(text('a.bak')).toBe('two');
    expect(appliedOps().map((r) => r.key)).toEqual(['k1', 'k2', 'k3', 'k4']);
  });

  it('a failed change is not recorded, so its retry applies it', async () => {
    mkdirSync(join(root, 'dir'), { recursive: true });
    await expect(call(writeFile, { path: 'dir', content: 'x' }, 'k')).rejects.toThrow(WorkspaceError);
    rmSync(join(root, 'dir'), { recursive: true });
    expect(await call(writeFile, { path: 'dir', content: 'x' }, 'k')).toEqual({ path: 'dir', bytes: 1 });
    expect(appliedOps()).toHaveLength(1);
  });

  it('refuses a change without a key', () => {
    expect(() => workspace.write('a.txt', 'x', '')).toThrow('write_file: a change needs an idempotency key');
  });
});

describe('the workspace agent and its recorded answers', () => {
  const model = () => createScriptedModel(plannerAnswersFile);
  const tools = [...workspaceAgent.tools];
  const ask = async (prompt: { system: string; messages: Array<{ role: 'user'; content: string }> }) =>
    (await model().generate(prompt)).text;
  const plan = async (extra: Partial<Parameters<typeof plannerPrompt>[0]> = {}) => {
    const parsed = parsePlanAnswer(await ask(plannerPrompt({ request: REQUEST, tools, ...extra })));
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.document.steps.map((s) => StepSpec.parse(s));
  };

  it('is registered as "workspace" next to wire-transfer and report-job, with the recorded answers', () => {
    expect(Object.keys(exampleAgents)).toEqual(['wire-transfer', 'workspace', 'report-job']);
    const example = exampleAgents.workspace!;
    expect(example.agent).toBe(workspaceAgent);
    expect(example.model().id).toBe(`scripted:${plannerAnswersFile}`);
    expect(workspaceAgent.name).toBe('workspace');
    expect(workspaceAgent.model).toBeUndefined();
    expect(workspaceAgent.input.parse({})).toEqual({ request: 'list the files of the workspace' });
  });

  it('the planner answer for the request is a valid plan: read, back up, write (after both), verify', async () => {
    const steps = await plan();
    expect(steps.map((s) => [s.id, s.tool, s.dependsOn])).toEqual([
      ['read_config', 'read_file', []],
      ['backup', 'copy_file', []],
      ['write_config', 'write_file', ['read_config', 'backup']],
      ['verify', 'read_file', ['write_config']],
    ]);
    for (const s of steps) expect(tools.find((t) => t.name === s.tool)!.input.safeParse(s.args).success).toBe(true);
    expect(JSON.parse(steps[2]!.args!.content as string)).toEqual({ name: 'demo-app', version: '2.0.0' });
  });

  it('the plan file is the same plan', async () => {
    const file = JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8'));
    expect(Object.keys(file).sort()).toEqual(['estimatedDuration', 'steps']);
    expect(file.steps.map((s: unknown) => StepSpec.parse(s))).toEqual(await plan());
    const recorded = parsePlanAnswer(await ask(plannerPrompt({ request: REQUEST, tools })));
    expect(recorded.ok && recorded.document.estimatedDuration).toBe(file.estimatedDuration);
  });

  it('the plan does what it says against the workspace, and a redelivery changes nothing', async () => {
    const steps = await plan();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const run = async () => {
      const results: Record<string, unknown> = {};
      for (const s of steps) results[s.id] = await call(byName.get(s.tool!)!, s.args, `bump/${s.id}`);
      return results;
    };
    workspaceRoot();
    const original = text('config.json');
    const results = await run();
    expect(text('config.json')).toBe(NEW_CONFIG);
    expect(text('config.json.bak')).toBe(original);
    expect(results.verify).toEqual({ path: 'config.json', content: NEW_CONFIG });
    await run();
    expect(text('config.json.bak')).toBe(original);
    expect(appliedOps().map((r) => r.key)).toEqual(['bump/backup', 'bump/write_config']);
  });

  it('a regeneration with feedback gives the revised plan (a changelog step after the check)', async () => {
    const steps = await plan({
      currentPlan: JSON.parse(readFileSync(bumpVersionPlanFile, 'utf8')),
      feedback: 'also record the new version in a changelog',
    });
    expect(steps.map((s) => s.id)).toEqual(['read_config', 'backup', 'write_config', 'verify', 'changelog']);
    expect(steps[4]).toMatchObject({ tool: 'write_file', dependsOn: ['verify'], args: { path: 'CHANGELOG.md' } });
  });

  it('recovery: a read of a missing file is retried with config.json; anything else aborts', async () => {
    const failed = (tool: string, args: Record<string, string>, error: string): Plan =>
      Plan.parse({
        id: 'p',
        taskId: 't',
        version: 1,
        createdAt: '2026-01-01T00:00:00.000Z',
        steps: [
          {
            id: 'read_settings',
            order: 0,
            description: 'read the settings',
            tool,
            args,
            dependsOn: [],
            critical: true,
            requiresApproval: false,
            status: 'failed',
            result: { ok: false, error, duration: 1, timestamp: 't', attempts: 3 },
          } satisfies Step,
        ],
      });
    const recover = async (p: Plan) =>
      parseRecoveryAnswer(
        await ask(
          recoveryPrompt({
            request: REQUEST,
            plan: p,
            failedStepId: 'read_settings',
            error: p.steps[0]!.result!.error!,
            tools,
          }),
        ),
      );

    const missing = failed(
      'read_file',
      { path: 'settings.json' },
      'tool read_file failed: settings.json: no such file',
    );
    expect(await recover(missing)).toEqual({ ok: true, action: { action: 'retry', args: { path: 'config.json' } } });
    const denied = failed(
      'write_file',
      { path: 'config.json', content: 'x' },
      'tool write_file failed: EACCES: permission denied',
    );
    expect(await recover(denied)).toEqual({
      ok: true,
      action: { action: 'abort', reason: 'the workspace is not in the state the plan expects' },
    });
  });
});

describe('the release', () => {
  const RELEASE =
    'Release version 1.5.0: set the version in package.json and src/version.ts, add a CHANGELOG entry, run the tests, and create the release tag only after the tests pass';

  it('the recorded planner answer is tool steps only, valid, and the release template with 1.5.0 filled in', async () => {
    const { validatePlan } = await import('../../src/plans/validate.ts');
    const { catalogOf } = await import('../../src/activities/plans.ts');
    const answer = await createScriptedModel(plannerAnswersFile).generate(
      plannerPrompt({ request: RELEASE, tools: [...workspaceAgent.tools] }),
    );
    const parsed = parsePlanAnswer(answer.text);
    if (!parsed.ok) throw new Error(parsed.message);
    const catalog = catalogOf(new Map([['workspace', exampleAgents.workspace!]]), exampleAgents.workspace!);
    expect(validatePlan(parsed.document.steps, catalog)).toEqual([]);
    const steps = parsed.document.steps.map((s) => StepSpec.parse(s));
    expect(steps.every((s) => s.tool !== undefined)).toBe(true);
    const template = JSON.parse(readFileSync(releasePlanFile, 'utf8')) as { params: object; steps: unknown[] };
    expect(validatePlan(template.steps, catalog, Object.keys(template.params))).toEqual([]);
    // the same plan: the template's param/version written as "1.5.0", computed names written out
    const filled = JSON.parse(
      JSON.stringify(template.steps)
        .replaceAll('param/version', '\\"1.5.0\\"')
        .replace(/Set the version in ([^"]+) to the new version/g, 'Set the version in $1 to 1.5.0'),
    );
    filled[7].args = { name: 'v1.5.0', message: 'Release 1.5.0' };
    expect(steps).toEqual(filled.map((s: unknown) => StepSpec.parse(s)));
  });

  it('run_tests reports each failing check; create_tag tags the version once and refuses an existing tag', async () => {
    workspaceRoot();
    expect(await call(runTests, {})).toEqual({ passed: 3, failed: 0, tests: expect.any(Array) });
    writeFileSync(join(root, 'src/version.ts'), "export const VERSION = '9.9.9';\n");
    expect(await call(runTests, {})).toMatchObject({
      passed: 2,
      failed: 1,
      tests: [
        { ok: true },
        {
          name: 'src/version.ts matches package.json',
          ok: false,
          message: 'src/version.ts exports "9.9.9", package.json has "1.4.2"',
        },
        { ok: true },
      ],
    });
    expect(await call(createTag, { name: 'v1.4.2', message: 'old' }, 'k1')).toEqual({
      tag: 'v1.4.2',
      version: '1.4.2',
    });
    expect(await call(createTag, { name: 'v1.4.2', message: 'old' }, 'k1')).toEqual({
      tag: 'v1.4.2',
      version: '1.4.2',
    });
    await expect(call(createTag, { name: 'v1.4.2', message: 'again' }, 'k2')).rejects.toThrow(
      new WorkspaceError('tag v1.4.2 already exists'),
    );
    await expect(call(writeFile, { path: '.tags/v9.json', content: '{}' })).rejects.toThrow(WorkspaceError);
    expect(workspace.tags()).toEqual([{ tag: 'v1.4.2', message: 'old', version: '1.4.2' }]);
    expect(appliedOps().map((o) => o.operation)).toEqual(['create_tag']);
  });
});
