/**
 * What a newcomer does (real lane only): `navigator dev --server temporal` starts the real
 * `temporal server start-dev` with its UI, a worker and the console; the wire transfer is run,
 * approved and audited from the CLI; the Temporal UI answers at the printed address.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testServerKind } from '../../src/devserver/testing.ts';
import { freePort } from '../../src/machine/free-port.ts';

const bin = join(process.cwd(), 'bin/navigator.mjs');
// NAVIGATOR_DATA_DIR: dev keeps the server's state (a SQLite file) in the per-user data folder by default; this test's in a folder of its own
const dataDir = mkdtempSync(join(tmpdir(), 'navigator-data-'));
const env = (port: number) => ({
  ...process.env,
  NAVIGATOR_DATA_DIR: dataDir,
  TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
  WIRE_TRANSFER_BANK_FILE: join(mkdtempSync(join(tmpdir(), 'dev-real-')), 'bank.jsonl'),
});

function cli(port: number, ...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: env(port) }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

/** Resolves with the output so far once `line` is printed; rejects if the process exits first. */
function until(child: ChildProcess, line: RegExp): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const check = (d: Buffer) => {
      out += d.toString();
      if (line.test(out)) resolve(out);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`navigator dev exited (${code}) before printing ${line}:\n${out}`)));
  });
}

describe.runIf(testServerKind() === 'temporal')('navigator dev --server temporal', () => {
  let dev: ChildProcess | undefined;
  afterAll(async () => {
    if (dev && dev.exitCode === null) await new Promise((r) => (dev!.once('exit', r), dev!.kill('SIGINT')));
  });

  it(
    'serves the real server and its UI; the wire transfer runs, is approved and audits from the CLI',
    { timeout: 180_000 },
    async () => {
      const [port, uiPort] = [await freePort(), await freePort()];
      const bank = env(port).WIRE_TRANSFER_BANK_FILE;
      dev = spawn(
        process.execPath,
        [bin, 'dev', '--server', 'temporal', '--port', String(port), '--ui-port', String(uiPort), '--no-console'],
        { env: { ...env(port), WIRE_TRANSFER_BANK_FILE: bank } },
      );
      const banner = await until(dev, /Navigator worker on task queue navigator running agents/);
      expect(banner).toContain(`Temporal dev server listening on 127.0.0.1:${port} (temporal server start-dev)`);
      expect(banner).toContain(`Temporal UI at http://127.0.0.1:${uiPort}`);
      expect(banner).toContain(`Server state kept in ${join(dataDir, 'dev-server', `temporal-${port}.sqlite`)}`);
      expect((await fetch(`http://127.0.0.1:${uiPort}/api/v1/namespaces/default/search-attributes`)).status).toBe(200);

      const run = await cli(
        port,
        'run',
        'wire-transfer',
        '--input',
        '{"recipient":"bob","amount":5000}',
        '--id',
        'dev-real-1',
        '--status-attribute',
        'NavigatorStatus',
      );
      expect(run.out, run.out).toContain('waiting for manager_decision_bob_5000');
      const approve = await cli(port, 'approve', 'dev-real-1');
      expect(approve.out).toContain('manager_decision_bob_5000 = "approved" recorded on dev-real-1');
      const watch = await cli(port, 'watch', 'dev-real-1');
      expect(watch.out).toMatch(/completed[\s\S]*"status":"sent"/);
      const audit = await cli(port, 'audit', 'dev-real-1');
      expect(audit.out, audit.out).toContain('audit passed');
      expect(audit.code).toBe(0);
      const listed = await cli(port, 'list', '--status', 'completed');
      expect(listed.out).toContain('dev-real-1');
    },
  );
});
