/**
 * The release plan (examples/workspace/release.plan.json, a template with a `version`
 * parameter) end to end against a real workspace: three files edited with values
 * computed from their read steps, the tests run after the edits, the tag created only
 * when no test failed. Once with every step approved (the tag runs), once with the
 * CHANGELOG edit skipped by the reviewer (a test fails, the tag is skipped and not made).
 * Each plan ends with its audit.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releasePlanFile, workspace } from '../../examples/workspace/index.ts';
import type { PlanHandle } from '../../src/client/plan/client.ts';
import { expectPlanAuditOk, stepOf, usePlanEnv, waitForPlan } from './plan-harness.ts';

const planEnvOf = usePlanEnv();
const T = { timeout: 180_000 };
const release = JSON.parse(readFileSync(releasePlanFile, 'utf8'));
let root: string;
beforeEach(() => {
  root = join(mkdtempSync(join(tmpdir(), 'release-')), 'workspace');
  process.env.WORKSPACE_DIR = root;
});
afterEach(() => {
  delete process.env.WORKSPACE_DIR;
});

/** Approves every step that waits for approval until the plan ends. */
async function approveAll(plan: PlanHandle): Promise<string[]> {
  const approved: string[] = [];
  for (;;) {
    const view = await waitForPlan(
      plan,
      (v) => v.approvals.length > 0 || ['completed', 'completed_with_failures', 'failed'].includes(v.status),
    );
    if (view.approvals.length === 0) return approved;
    for (const a of view.approvals) {
      await plan.approveStep(a.stepId, { by: 'ana' });
      approved.push(a.stepId);
    }
  }
}

describe('the release plan', () => {
  it('edits the three files with computed content, runs the tests, and tags when none failed', T, async () => {
    const env = planEnvOf();
    const plan = await env.startPlan({
      agent: 'workspace',
      approve: true,
      document: release,
      params: { version: '1.5.0' },
    });
    const approved = await approveAll(plan);
    expect(approved.sort()).toEqual(['tag', 'write_changelog', 'write_pkg', 'write_version']);
    expect((await plan.result()).status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'run_tests').result!.value).toMatchObject({ passed: 3, failed: 0 });
    expect(stepOf(view, 'tag')).toMatchObject({
      status: 'completed',
      result: { value: { tag: 'v1.5.0', version: '1.5.0' } },
    });
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version).toBe('1.5.0');
    expect(readFileSync(join(root, 'src/version.ts'), 'utf8')).toBe("export const VERSION = '1.5.0';\n");
    expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toMatch(
      /^# Changelog\n\n## 1\.5\.0\n\n- Release 1\.5\.0\.\n\n## 1\.4\.2\n/,
    );
    expect(workspace.tags()).toEqual([{ tag: 'v1.5.0', message: 'Release 1.5.0', version: '1.5.0' }]);
    await expectPlanAuditOk(env, plan.id);
  });

  it('skips the tag when a test fails (the CHANGELOG edit was skipped in review)', T, async () => {
    const env = planEnvOf();
    const plan = await env.startPlan({ agent: 'workspace', document: release, params: { version: '1.6.0' } });
    await waitForPlan(plan, (v) => v.status === 'review');
    await plan.edit({ kind: 'skip', stepId: 'write_changelog', reason: 'write the notes later' });
    await plan.approve();
    const approved = await approveAll(plan);
    expect(approved.sort()).toEqual(['write_pkg', 'write_version']);
    expect((await plan.result()).status).toBe('completed');
    const view = await plan.status();
    expect(stepOf(view, 'run_tests').result!.value).toEqual({
      passed: 2,
      failed: 1,
      tests: [
        { name: 'package.json has a version', ok: true },
        { name: 'src/version.ts matches package.json', ok: true },
        {
          name: 'CHANGELOG.md has an entry for the version',
          ok: false,
          message: 'CHANGELOG.md has no "## 1.6.0" entry',
        },
      ],
    });
    expect(stepOf(view, 'tag')).toMatchObject({ status: 'skipped', skippedBy: 'condition', reason: 'condition false' });
    expect(workspace.tags()).toEqual([]);
    expect((await plan.ledger()).map((e) => e.stepId)).not.toContain('tag');
    await expectPlanAuditOk(env, plan.id);
  });
});
