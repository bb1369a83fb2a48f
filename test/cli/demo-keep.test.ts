/**
 * A demo's follow-up commands need its server: `demo --keep` keeps the server and worker
 * after the demo and prints how to reach them; the commands then work, and Ctrl-C ends it.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../mission/harness.ts';
import { runCli } from './run-cli.ts';

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const cli = (args: string[], env: Record<string, string>) => runCli(args, { ...process.env, ...env });

describe('demo --keep', () => {
  it('keeps the server for the commands it prints, until Ctrl-C', { timeout: 240_000 }, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'NAVIGATOR_TASK_QUEUE', 'TEMPORAL_PROFILE'])
      delete env[k];
    const demo = spawn(process.execPath, ['bin/navigator.mjs', 'demo', 'mission', '--keep'], { env });
    children.push(demo);
    let out = '';
    demo.stdout.on('data', (d) => (out += d));
    await eventually(
      () => out.includes('in another terminal: export'),
      200_000,
      'the demo to finish and keep its server',
    );
    const [, address, namespace, queue] = out.match(
      /export TEMPORAL_ADDRESS=(\S+) TEMPORAL_NAMESPACE=(\S+) NAVIGATOR_TASK_QUEUE=(\S+)/,
    )!;
    const id = out.match(/Starting mission (\S+):/)![1]!;
    const status = await cli(['status', id], {
      TEMPORAL_ADDRESS: address!,
      TEMPORAL_NAMESPACE: namespace!,
      NAVIGATOR_TASK_QUEUE: queue!,
    });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Mission ${id}: completed`);
    const exited = new Promise<number | null>((resolve) => demo.on('exit', resolve));
    demo.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(0);
  });
});
