/**
 * What can be checked before a workflow starts is refused with its reason and exit code
 * 2: the real CLI in a child process, pointed at an address where no Temporal listens, so
 * a refusal that came from a started workflow (or from trying to start one) cannot pass.
 */
import { runCli } from './run-cli.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const NOWHERE = '127.0.0.1:9';
const AGENTS = './test/mission/fixtures/slow-agents.ts';

function cli(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: NOWHERE };
  delete env.NAVIGATOR_AGENTS;
  return runCli(args, env);
}

const planFile = (doc: unknown): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'before-start-')), 'plan.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
};

describe('refused before anything starts', () => {
  it('run: an agent the given module does not have', { timeout: 60_000 }, async () => {
    const r = await cli('run', 'wire-transfr', '--agents', AGENTS);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('navigator: unknown agent "wire-transfr"');
    expect(r.stderr).toContain('wire-transfer');
    expect(r.stderr).not.toMatch(/cannot reach Temporal|\n\s+at /);
  });

  it('run: an input the agent refuses', { timeout: 60_000 }, async () => {
    const r = await cli('run', 'wire-transfer', '--input', '{"recipient": "bob", "amount": "lots"}');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^navigator: agent wire-transfer: [\s\S]*amount: Invalid input: expected number/);
    expect(r.stderr).not.toContain('cannot reach Temporal');
  });

  it('plan start: a cyclic plan, naming the cycle', { timeout: 60_000 }, async () => {
    const file = planFile({
      steps: [
        { id: 'a', description: 'a', tool: 'read_file', args: { path: 'x' }, dependsOn: ['b'] },
        { id: 'b', description: 'b', tool: 'read_file', args: { path: 'y' }, dependsOn: ['a'] },
      ],
    });
    const r = await cli('plan', 'start', file, '--agent', 'workspace');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was started');
    expect(r.stderr).toContain('dependency cycle: a -> b -> a');
    expect(r.stderr).not.toContain('cannot reach Temporal');
  });

  it('plan start and plan create: --agent nosuch with the module given', { timeout: 60_000 }, async () => {
    const file = planFile({ steps: [{ id: 'a', description: 'a', tool: 'read_file', args: { path: 'x' } }] });
    const started = await cli('plan', 'start', file, '--agent', 'nosuch', '--agents', AGENTS);
    expect(started.code).toBe(2);
    expect(started.stderr).toContain('unknown agent "nosuch"');
    const created = await cli('plan', 'create', 'nosuch', '--request', 'do it', '--agents', AGENTS);
    expect(created.code).toBe(2);
    expect(created.stderr).toContain('unknown agent "nosuch"');
  });

  it('what passes the checks goes on to the server', { timeout: 60_000 }, async () => {
    const r = await cli('run', 'wire-transfer', '--input', '{"recipient": "bob", "amount": 5000}');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach Temporal at ${NOWHERE}`);
  });
});
