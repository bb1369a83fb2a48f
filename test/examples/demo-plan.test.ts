/**
 * `navigator demo plan`: the release request planned by the recorded planner into tool
 * steps ($expr file edits, a test run, a tag with `when` on the test result), approved,
 * executed and audited, as a person runs it on a fresh machine.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer, testServerKind } from '../../src/devserver/testing.ts';
import { runDemo } from './run-demo.ts';

describe('navigator demo plan', () => {
  it(
    'plans the release into tool steps and runs it: computed edits, tests, the tag after them; audited',
    { timeout: 240_000 },
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'demo-plan-'));
      const real =
        testServerKind() === 'temporal'
          ? await startTestServer({ searchAttributes: { NavigatorStatus: 'Keyword' } })
          : null;
      const env: Record<string, string> = real
        ? { TEMPORAL_ADDRESS: real.address, TEMPORAL_NAMESPACE: real.namespace }
        : {};
      try {
        const { code, out } = await runDemo(['plan'], env, cwd, ['NAVIGATOR_MODEL', 'WORKSPACE_DIR']);
        expect(out, out).toContain(
          'Planning: "Release version 1.5.0: set the version in package.json and src/version.ts',
        );
        // the plan as reviewed: tool steps only, computed content, the tag conditional on the tests
        const review = out.slice(0, out.indexOf('== The reviewer approves'));
        for (const tool of ['read_file', 'write_file', 'run_tests', 'create_tag'])
          expect(review).toContain(` ${tool} `);
        expect(review).not.toMatch(/│ {7}agent /);
        expect(review).toContain('"$expr"');
        expect(review).toContain('when: (zero? (:failed step/run_tests))');
        for (const step of ['write_pkg', 'write_version', 'write_changelog', 'tag'])
          expect(out).toContain(`== Step ${step} waits for approval`);
        expect(out).toContain('completed → {"passed":3,"failed":0');
        expect(out).toContain('completed → {"tag":"v1.5.0","version":"1.5.0"}');
        expect(out).toContain('│ 8 completed');
        expect(out).toContain('package.json now:   { "name": "demo-app", "version": "1.5.0", "private": true }');
        expect(out).toContain("src/version.ts now: export const VERSION = '1.5.0';");
        expect(out).toContain('side effects completed twice: none');
        expect(out).toContain('replay: deterministic');
        expect(out).toContain('audit passed');
        expect(code).toBe(0);
        const ws = join(
          cwd,
          '.navigator',
          readdirSync(join(cwd, '.navigator')).find((f) => f.startsWith('demo-workspace-'))!,
        );
        expect(readFileSync(join(ws, 'CHANGELOG.md'), 'utf8')).toMatch(/^# Changelog\n\n## 1\.5\.0\n/);
        expect(JSON.parse(readFileSync(join(ws, '.tags', 'v1.5.0.json'), 'utf8'))).toEqual({
          tag: 'v1.5.0',
          message: 'Release 1.5.0',
          version: '1.5.0',
        });
      } finally {
        await real?.shutdown();
      }
    },
  );
});
