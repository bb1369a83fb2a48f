/**
 * The published package, as a user gets it: `npm pack` (which builds dist/ on prepack),
 * install the tarball into a fresh project, type-check a TypeScript agent + worker +
 * client that import only by package name, run a mission on the embedded server and
 * audit it, and run the packaged CLI.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = process.cwd();
const fixtures = join(repo, 'test/package/fixtures');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir: string;
let project: string;
let tarball: string;

function run(cmd: string, args: string[], cwd: string, input?: string): string {
  try {
    return execFileSync(cmd, args, { cwd, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'navigator-pack-'));
  project = join(dir, 'project');
  run(npm, ['pack', '--pack-destination', dir], repo);
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const zod = (JSON.parse(run('node', ['-p', 'JSON.stringify(require("./package.json").dependencies)'], repo)) as Record<string, string>).zod!;
  run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `zod@${zod}`, '@types/node@20', 'typescript@5.9'], project);
  copyFileSync(join(fixtures, 'consumer-main.ts'), join(project, 'main.ts'));
  copyFileSync(join(fixtures, 'tsconfig.consumer.json'), join(project, 'tsconfig.json'));
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed package in a fresh project', () => {
  it('is lean: compiled JavaScript and declarations, no TypeScript sources or tests', () => {
    const listing = run('tar', ['-tzf', tarball], dir).split('\n').filter(Boolean);
    expect(listing).toContain('package/dist/src/index.js');
    expect(listing).toContain('package/dist/src/index.d.ts');
    expect(listing).toContain('package/dist/examples/wire-transfer/answers.json');
    expect(listing.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(listing.filter((f) => f.startsWith('package/test/') || f.startsWith('package/src/'))).toEqual([]);
    expect(statSync(tarball).size).toBeLessThan(1024 * 1024);
  });

  it('type-checks a user agent, worker and client that import only by package name', () => {
    // the fixture also holds lines that must be type errors (@ts-expect-error): the types are real
    expect(() => run(join(project, 'node_modules/.bin/tsc'), ['-p', '.'], project)).not.toThrow();
  }, 120_000);

  it('runs a mission on the embedded server with the user worker, and audits it', () => {
    const out = run('node', ['--import', 'tsx', 'main.ts'], project).trim().split('\n').pop()!;
    expect(JSON.parse(out)).toEqual({ result: { sent: 7 }, sent: [7], audit: true, status: 'completed' });
  }, 120_000);

  it('ships the CLI, running the compiled code', () => {
    expect(run(join(project, 'node_modules/.bin/navigator'), ['eval', '-'], project, '(reduce + (range 5))').trim()).toBe('10');
  }, 60_000);
});
