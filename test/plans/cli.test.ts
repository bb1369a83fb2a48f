/**
 * `navigator plan ...` as a user types it: the real CLI in a child process against the
 * embedded server and an in-process worker. Validate without a server; start from a
 * file, review, edit (a bad edit refused), approve, approve the gated step, audit; and
 * one-line errors for unknown ids, steps and bad JSON.
 */
import { valueHash } from '../../src/history/hash.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { getPlan } from '../../src/client/plan/client.ts';
import { planEnv, waitForPlan, type PlanEnv } from './plan-harness.ts';
import { runCli, type CliRun } from '../cli/run-cli';

let env: PlanEnv;
let workspace: string;
beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'plan-cli-ws-'));
  process.env.WORKSPACE_DIR = workspace;
  env = await planEnv();
  await env.startWorker();
}, 120_000);
afterAll(async () => env?.shutdown());

const PLAN_FILE = 'examples/workspace/bump-version.plan.json';

function cli(...args: string[]): Promise<CliRun> {
  return runCli(args, {
    ...process.env,
    TEMPORAL_ADDRESS: env.env.server.address,
    TEMPORAL_NAMESPACE: env.env.server.namespace,
    NAVIGATOR_TASK_QUEUE: env.taskQueue,
    WORKSPACE_DIR: workspace,
  });
}

describe('navigator plan', () => {
  it(
    'validate --params: a missing or ill-typed parameter and a bad expression are problems naming them',
    { timeout: 60_000 },
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'plan-params-')), 'bump.json');
      writeFileSync(
        file,
        JSON.stringify({
          params: { version: { type: 'string' } },
          steps: [
            { id: 'read', description: 'read', tool: 'read_file', args: { path: 'config.json' } },
            {
              id: 'write',
              description: 'write',
              tool: 'write_file',
              args: { path: 'config.json', content: { $expr: '(str/replace (:content step/read) "1" param/version)' } },
              dependsOn: ['read'],
            },
            { id: 'bad', description: 'bad', tool: 'read_file', args: { path: { $expr: '(str "a"' } } },
          ],
        }),
      );
      const missing = await cli('plan', 'validate', file, '--agent', 'workspace', '--params', '{}', '--json');
      expect(missing.code).toBe(1);
      const problems = (
        JSON.parse(missing.stdout) as {
          problems: Array<{ code: string; stepId: string | null; path: string; message: string }>;
        }
      ).problems;
      expect(problems.map((p) => [p.code, p.stepId, p.path])).toEqual([
        ['missing_param', null, 'params.version'],
        ['invalid_expression', 'bad', 'args.path'],
      ]);
      expect(problems[1]!.message).toMatch(/^args\.path: line 1, column 1: /);
      const illTyped = await cli('plan', 'validate', file, '--agent', 'workspace', '--params', '{"version": 2}');
      expect(illTyped.code).toBe(1);
      expect(illTyped.stdout).toMatch(
        /plan params\.version: parameter version = 2 is invalid: version: .*expected string.* \[invalid_param\]/,
      );
    },
  );

  it('validate: a good file passes; a bad one lists every problem and exits 1', { timeout: 60_000 }, async () => {
    const ok = await cli('plan', 'validate', PLAN_FILE, '--agent', 'workspace');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/valid \(4 steps\)/);

    const bad = join(mkdtempSync(join(tmpdir(), 'plan-bad-')), 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        steps: [
          { id: 'a', description: 'x', tool: 'read_file', args: { path: 1 }, dependsOn: ['b'] },
          { id: 'b', description: 'y', tool: 'shred', args: {}, dependsOn: ['a'] },
        ],
      }),
    );
    const json = await cli('plan', 'validate', bad, '--agent', 'workspace', '--json');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      problems: Array<{ code: string; stepId: string; path: string }>;
    };
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.code).sort()).toEqual(['cycle', 'invalid_args', 'unknown_tool']);
    expect(report.problems.find((p) => p.code === 'invalid_args')).toMatchObject({ stepId: 'a', path: 'args.path' });
  });

  it('start, show, edit, approve, approve-step, audit', { timeout: 120_000 }, async () => {
    const id = `cli-plan-${Date.now()}`;
    const started = await cli('plan', 'start', PLAN_FILE, '--agent', 'workspace', '--id', id);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/review/);
    expect(started.stdout).toMatch(/write_config[\s\S]*requires approval/);

    const shown = JSON.parse((await cli('plan', 'show', id, '--json')).stdout);
    expect(shown).toMatchObject({ id, version: 1, status: 'review' });
    expect(shown.steps.map((s: { id: string }) => s.id)).toEqual(['read_config', 'backup', 'write_config', 'verify']);
    expect(shown.steps[2]).toMatchObject({
      tool: 'write_file',
      requiresApproval: true,
      critical: true,
      dependsOn: ['read_config', 'backup'],
    });

    const badJson = await cli('plan', 'edit', id, 'write_config', '--args', '{nope');
    expect(badJson.code).toBe(2);
    expect(badJson.stderr.trim().split('\n')).toHaveLength(1);
    const cycle = await cli('plan', 'edit', id, 'read_config', '--depends-on', 'verify');
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toMatch(/rejected: .*cycle/s);
    const content = '{\n  "name": "demo-app",\n  "version": "3.0.0"\n}\n';
    const edited = await cli(
      'plan',
      'edit',
      id,
      'write_config',
      '--args',
      JSON.stringify({ path: 'config.json', content }),
    );
    expect(edited.code).toBe(0);
    expect(edited.stdout).toMatch(/version 2/);

    expect((await cli('plan', 'approve', id)).code).toBe(0);
    await waitForPlan(getPlan(env.client, id), (v) => v.approvals.some((a) => a.stepId === 'write_config'));
    const wrongStep = await cli('plan', 'approve-step', id, 'verify');
    expect(wrongStep.code).toBe(1);
    expect(wrongStep.stderr).toMatch(/not awaiting approval/);
    // the approval is for the args the reviewer saw (plan show prints their hash in the command)
    expect(
      (
        await cli(
          'plan',
          'approve-step',
          id,
          'write_config',
          '--args-hash',
          valueHash({ path: 'config.json', content }),
        )
      ).code,
    ).toBe(0);
    await getPlan(env.client, id).result();
    expect(readFileSync(join(workspace, 'config.json'), 'utf8')).toBe(content);

    const audit = await cli('plan', 'audit', id);
    expect(audit.stdout).toMatch(/audit passed/);
    expect(audit.code).toBe(0);
    const versions = await cli('plan', 'versions', id);
    expect(versions.stdout).toMatch(/v2 .*edited args of step write_config/);

    // offline: the exported history passes; with the write's completion duplicated it fails
    const history = JSON.parse(historyToJSON(await getPlan(env.client, id).workflow.fetchHistory())) as {
      events: Array<Record<string, any>>;
    };
    const dir = mkdtempSync(join(tmpdir(), 'plan-history-'));
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(history));
    const offline = await cli('plan', 'audit', '--history', join(dir, 'plan.json'));
    expect(offline.stdout).toMatch(/audit passed/);
    expect(offline.code).toBe(0);
    const write = history.events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityId === 'step-write_config-1',
    )!;
    const done = history.events.find(
      (e) => e.activityTaskCompletedEventAttributes?.scheduledEventId === write.eventId,
    )!;
    const last = history.events.at(-1)!;
    history.events.splice(history.events.length - 1, 0, { ...structuredClone(done), eventId: last.eventId });
    last.eventId = String(Number(last.eventId) + 1);
    writeFileSync(join(dir, 'tampered.json'), JSON.stringify(history));
    const tampered = await cli('plan', 'audit', '--history', join(dir, 'tampered.json'), '--json');
    expect(tampered.code).toBe(1);
    const report = JSON.parse(tampered.stdout) as { ok: boolean; problems: string[] };
    expect(report.ok).toBe(false);
    expect(report.problems).toContain('write_config: side effect write_file completed 2 times for one idempotency key');
  });

  it(
    'export --template saves a reviewed plan as a template file that validates and starts with new params',
    { timeout: 120_000 },
    async () => {
      const id = `cli-export-${Date.now()}`;
      const started = await cli(
        'plan',
        'start',
        'examples/workspace/release.plan.json',
        '--agent',
        'workspace',
        '--id',
        id,
        '--params',
        '{"version": "2.0.0"}',
      );
      expect(started.code).toBe(0);
      expect((await cli('plan', 'skip', id, 'write_changelog', '--reason', 'no changelog in hotfixes')).code).toBe(0);
      const dir = mkdtempSync(join(tmpdir(), 'plan-export-'));
      const saved = await cli('plan', 'export', id, '--template', '--out', join(dir, 'hotfix.plan.json'));
      expect(saved.stdout).toBe(
        `wrote ${join(dir, 'hotfix.plan.json')}: 7 steps, params version (give them with --params)\n`,
      );
      const template = JSON.parse(readFileSync(join(dir, 'hotfix.plan.json'), 'utf8'));
      const original = JSON.parse(readFileSync('examples/workspace/release.plan.json', 'utf8'));
      expect(template.params).toEqual(original.params);
      expect(template.steps.map((s: { id: string }) => s.id)).toEqual([
        'read_pkg',
        'read_version',
        'read_changelog',
        'write_pkg',
        'write_version',
        'run_tests',
        'tag',
      ]);
      expect(template.steps[5]).toMatchObject({ id: 'run_tests', dependsOn: ['write_pkg', 'write_version'] });
      expect(template.steps[6]).toMatchObject({
        when: '(zero? (:failed step/run_tests))',
        args: original.steps[7].args,
        requiresApproval: true,
      });
      expect(
        (
          await cli(
            'plan',
            'validate',
            join(dir, 'hotfix.plan.json'),
            '--agent',
            'workspace',
            '--params',
            '{"version": "2.0.1"}',
          )
        ).stdout,
      ).toMatch(/valid \(7 steps\)/);
      const missing = await cli(
        'plan',
        'validate',
        join(dir, 'hotfix.plan.json'),
        '--agent',
        'workspace',
        '--params',
        '{}',
      );
      expect(missing.stdout).toMatch(/parameter version is missing/);

      // without --template the values this plan ran with are the defaults: the file starts as is
      const plain = JSON.parse((await cli('plan', 'export', id)).stdout);
      expect(plain.params).toEqual({ version: { ...original.params.version, default: '2.0.0' } });
      writeFileSync(join(dir, 'again.plan.json'), JSON.stringify(plain));
      const again = await cli(
        'plan',
        'start',
        join(dir, 'again.plan.json'),
        '--agent',
        'workspace',
        '--id',
        `${id}-again`,
        '--json',
      );
      expect(again.code).toBe(0);
      expect((await getPlan(env.client, `${id}-again`).plan())!.params).toEqual({
        version: { schema: plain.params.version, value: '2.0.0' },
      });
      await getPlan(env.client, id).cancel('exported');
      await getPlan(env.client, `${id}-again`).cancel('started from the export');
    },
  );

  it(
    'a question: plan show lists it with the command; plan answer refuses a bad answer and takes a good one; audited',
    { timeout: 120_000 },
    async () => {
      const id = `cli-ask-${Date.now()}`;
      const dir = mkdtempSync(join(tmpdir(), 'plan-ask-'));
      const doc = {
        steps: [
          {
            id: 'pick',
            description: 'which file',
            ask: { question: 'Which file should be read?', schema: { enum: ['config.json', 'README.md'] } },
          },
          {
            id: 'read',
            description: 'read it',
            tool: 'read_file',
            args: { path: { $expr: 'step/pick' } },
            dependsOn: ['pick'],
          },
        ],
      };
      writeFileSync(join(dir, 'ask.plan.json'), JSON.stringify(doc));
      const started = await cli(
        'plan',
        'start',
        join(dir, 'ask.plan.json'),
        '--agent',
        'workspace',
        '--id',
        id,
        '--approve',
      );
      expect(started.code).toBe(0);
      expect(started.stdout).toContain(
        'ask: Which file should be read? (answer: {"enum":["config.json","README.md"]})',
      );
      expect(started.stdout).toContain(`waiting for an answer: pick: Which file should be read?`);
      expect(started.stdout).toContain(`answer: npx navigator plan answer ${id} pick '<JSON>'`);
      const bad = await cli('plan', 'answer', id, 'pick', '"secrets.txt"');
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim()).toBe(
        `navigator: rejected: step pick: the answer "secrets.txt" does not match the question's schema: answer: Invalid option: expected one of "config.json"|"README.md"`,
      );
      const good = await cli('plan', 'answer', id, 'pick', '"README.md"', '--by', 'ana');
      expect(good.code).toBe(0);
      await getPlan(env.client, id).result();
      const shown = JSON.parse((await cli('plan', 'show', id, '--json')).stdout);
      expect(shown.steps[0]).toMatchObject({
        id: 'pick',
        status: 'completed',
        answeredBy: 'ana',
        result: { value: 'README.md' },
      });
      expect(shown.steps[1].result.value).toMatchObject({ path: 'README.md' });
      const audit = await cli('plan', 'audit', id);
      expect(audit.stdout).toMatch(
        /ok {2}pick: completed; history: completed \(event \d+, answerStep update event \d+\)/,
      );
      expect(audit.stdout + audit.stderr).toMatch(/audit passed/);
      expect(audit.code).toBe(0);
    },
  );

  it('unknown ids and steps give one clear line and a non-zero exit', { timeout: 60_000 }, async () => {
    const missing = await cli('plan', 'show', 'no-such-plan');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('navigator: no plan with id no-such-plan');
    const unknownAgent = await cli('plan', 'validate', PLAN_FILE, '--agent', 'nobody');
    expect(unknownAgent.code).toBe(2);
    expect(unknownAgent.stderr).toMatch(/unknown agent nobody/);
  });
});
