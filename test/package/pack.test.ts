/**
 * The published package, as a user gets it: `npm pack` (which builds dist/ on prepack),
 * install the tarball into a fresh ESM project, compile the user's TypeScript with tsc,
 * and run everything with plain `node` on the compiled JavaScript: the packaged CLI's
 * `dev` with the user's agents, missions, approvals, audits, plans and schedules, and a
 * client script. This is docs/library.md ("Using Navigator in your own project"), step by step.
 *
 * Plain node matters: tsx (which runs this repository) forgives imports that Node's own
 * ESM resolver refuses, so only a run without it shows the package works for a user.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = process.cwd();
const fixtures = join(repo, 'test/package/fixtures');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const ENTRY_POINTS = ['', '/worker', '/client', '/workflows', '/activities', '/testing', '/devserver'];
let dir: string;
let project: string;
let tarball: string;

// No loader from this process (vitest's, or tsx through NODE_OPTIONS) reaches the consumer.
function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

function failure(cmd: string, args: string[], e: unknown): Error {
  const err = e as { stdout?: string; stderr?: string };
  return new Error(`${cmd} ${args.join(' ')} failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
}

function run(cmd: string, args: string[], cwd: string, input?: string): string {
  try {
    return execFileSync(cmd, args, {
      cwd,
      input,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      env: consumerEnv(),
    });
  } catch (e) {
    throw failure(cmd, args, e);
  }
}

/** Asynchronous, so that the dev server's output keeps being read meanwhile. */
async function runAsync(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    return (await promisify(execFile)(cmd, args, { cwd: project, encoding: 'utf8', env })).stdout;
  } catch (e) {
    throw failure(cmd, args, e);
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'navigator-pack-'));
  project = join(dir, 'project');
  run(npm, ['pack', '--pack-destination', dir], repo);
  tarball = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz'))!,
  );
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // the guide's two installs in one: the package (by its tarball) and zod, then tsc and Node's types
  const zod = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies.zod!;
  run(
    npm,
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `zod@${zod}`,
      '@types/node@20',
      'typescript@5.9',
    ],
    project,
  );
  for (const file of ['my-agents.ts', 'start.ts', 'note.plan.json'])
    copyFileSync(join(fixtures, file), join(project, file));
  copyFileSync(join(fixtures, 'consumer-main.ts'), join(project, 'main.ts'));
  copyFileSync(join(fixtures, 'tsconfig.consumer.json'), join(project, 'tsconfig.json'));
  // tsx is a dependency of the package (the CLI loads a user's .ts module with it). Moved
  // out of reach here, so that nothing can be working only because something loaded it,
  // until the last test puts it back for a .ts module.
  renameSync(join(project, 'node_modules/tsx'), join(dir, 'tsx-aside'));
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

  it('imports every entry point with plain node, where tsx cannot even be resolved', () => {
    const script = `
      let tsx = 'resolvable';
      try { import.meta.resolve('tsx'); } catch { tsx = 'unresolvable'; }
      const entries = {};
      for (const e of ${JSON.stringify(ENTRY_POINTS)}) entries[e || '.'] = Object.keys(await import('navigator-on-temporal' + e)).length > 0;
      console.log(JSON.stringify({ tsx, entries }));`;
    const out = JSON.parse(run('node', ['--input-type=module', '-e', script], project)) as {
      tsx: string;
      entries: Record<string, boolean>;
    };
    expect(out.tsx).toBe('unresolvable');
    expect(out.entries).toEqual(Object.fromEntries(ENTRY_POINTS.map((e) => [e || '.', true])));
  }, 60_000);

  it('type-checks and compiles a user agent, worker and client that import only by package name', () => {
    // the fixtures also hold lines that must be type errors (@ts-expect-error): the types are real
    run(join(project, 'node_modules/.bin/tsc'), ['-p', '.'], project);
    expect(readdirSync(join(project, 'dist')).sort()).toEqual(['main.js', 'my-agents.js', 'start.js']);
  }, 120_000);

  it('runs a mission on the embedded server with the user worker, and audits it', () => {
    const out = run('node', ['dist/main.js'], project).trim().split('\n').pop()!;
    expect(JSON.parse(out)).toEqual({ result: { sent: 7 }, sent: [7], audit: true, status: 'completed' });
  }, 120_000);

  it('ships the CLI, running the compiled code', () => {
    expect(
      run(join(project, 'node_modules/.bin/navigator'), ['eval', '-'], project, '(reduce + (range 5))').trim(),
    ).toBe('10');
  }, 60_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Resolves once what `child` printed matches `ready`; rejects if it ends first. */
function outputUntil(child: ChildProcess, ready: RegExp): Promise<void> {
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('close', (code) => reject(new Error(`ended (${code}) before printing ${ready}:\n${out}`)));
  });
}

/** Everything `child` prints on stdout, and its exit code, once it has ended. */
function outcome(child: ChildProcess): Promise<{ code: number | null; stdout: string }> {
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout })));
}

// every command of the walk-through, as docs/library.md writes it
const shown: string[] = [];
function show(cmd: string, args: string[]): string[] {
  shown.push([cmd, ...args.map((a) => (/^[\w./:=-]+$/.test(a) ? a : `'${a}'`))].join(' '));
  return args;
}

describe('the docs/library.md walk-through with the installed CLI and plain node', () => {
  let dev: ChildProcess;
  let env: NodeJS.ProcessEnv;
  const bin = () => join(project, 'node_modules/.bin/navigator');
  const navigator = (...args: string[]) => runAsync(bin(), show('npx navigator', args), env);

  // `npx navigator dev --agents ./dist/my-agents.js`, on a free port and without the console
  beforeAll(async () => {
    const port = await freePort();
    env = consumerEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    const args = [
      ...show('npx navigator', ['dev', '--agents', './dist/my-agents.js']),
      '--port',
      String(port),
      '--no-console',
    ];
    dev = spawn(bin(), args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    await outputUntil(dev, /running agents: .*\bnotes\b/);
  }, 120_000);
  afterAll(async () => {
    if (!dev) return;
    const ended = outcome(dev);
    dev.kill('SIGINT'); // what Ctrl-C does: the server and the worker shut down
    await ended;
  });

  it('run --wait follows a mission until approve lets it send its note', async () => {
    const args = show('npx navigator', ['run', 'notes', '--input', '{"text":"hello"}', '--id', 'note-1', '--wait']);
    const running = spawn(bin(), args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ended = outcome(running);
    await outputUntil(running, /waiting for approve_note/);
    expect(await navigator('approve', 'note-1')).toContain('approve_note = "approved" recorded on note-1');
    const { code, stdout } = await ended;
    expect(stdout).toContain('Mission note-1: completed');
    expect(stdout).toContain('result: {"sent":"hello"}');
    expect(code).toBe(0);
  });

  it('audit rebuilds the journal from history and replays it', async () => {
    const out = await navigator('audit', 'note-1');
    expect(out).toContain('send_note: committed by pass 2');
    expect(out).toContain('external effects run twice: none');
    expect(out).toContain('replay: deterministic');
    expect(out).toContain('audit passed');
  });

  it("plan start runs a plan file with the agent's tool; plan audit checks it", async () => {
    await navigator('plan', 'start', 'note.plan.json', '--agent', 'notes', '--id', 'plan-1', '--approve');
    expect(await navigator('plan', 'watch', 'plan-1')).toContain('plan completed');
    const audit = await navigator('plan', 'audit', 'plan-1');
    expect(audit).toContain('ok  send: completed');
    expect(audit).toContain('side effects completed twice: none');
    expect(audit).toContain('audit passed');
  });

  it('schedule create and delete a schedule of missions', async () => {
    const created = await navigator(
      'schedule',
      'create',
      'notes',
      '--every',
      '1d',
      '--input',
      '{"text":"daily"}',
      '--id',
      'daily-note',
      '--paused',
    );
    expect(created).toContain('Created Schedule daily-note: agent notes, every 24h');
    expect(await navigator('schedule', 'delete', 'daily-note')).toContain('Deleted schedule daily-note.');
    expect(JSON.parse(await navigator('schedule', 'list', '--json'))).toEqual([]);
  });

  it('a client script starts a mission, approves it and reads its result', async () => {
    const out = (await runAsync('node', show('node', ['dist/start.js']), env)).trim().split('\n');
    expect(out).toEqual(['{"sent":"from code"}', 'true']);
  });

  it('ran each external effect exactly once', () => {
    const notes = readFileSync(join(project, 'notes.log'), 'utf8').trim().split('\n');
    expect(notes.sort()).toEqual(['from a plan', 'from code', 'hello']);
  });

  it('is what docs/library.md shows: the same files, the same commands', () => {
    const section = readFileSync(join(repo, 'docs/library.md'), 'utf8');
    for (const file of ['my-agents.ts', 'start.ts', 'note.plan.json', 'tsconfig.consumer.json']) {
      expect(section).toContain(readFileSync(join(fixtures, file), 'utf8').trim());
    }
    expect(shown.length).toBeGreaterThan(10);
    for (const command of shown) expect(section).toContain(command);
  });
});

describe('a TypeScript module given to the installed CLI', () => {
  it('is loaded through tsx, the one thing the package needs tsx for', () => {
    renameSync(join(dir, 'tsx-aside'), join(project, 'node_modules/tsx'));
    const tools = [
      "import { z } from 'zod';",
      "import { defineTool } from 'navigator-on-temporal';",
      'const n: number = 2;',
      "export default [defineTool({ name: 'double', description: 'Doubles n.', input: z.object({ n: z.number() }), sideEffect: 'read_only', handler: async ({ n: x }) => x * n })];",
    ];
    writeFileSync(join(project, 'tools.ts'), tools.join('\n'));
    expect(
      run(
        join(project, 'node_modules/.bin/navigator'),
        ['eval', '-', '--tools', './tools.ts'],
        project,
        '(tool/double {:n 21})',
      ).trim(),
    ).toBe('42');
  }, 60_000);
});
