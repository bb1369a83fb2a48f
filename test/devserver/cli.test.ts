/** runDevCommand (`navigator dev`): prints its address, serves, stops on SIGTERM. */
import { Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const index = fileURLToPath(new URL('../../src/devserver/index.ts', import.meta.url));

describe('runDevCommand', () => {
  it('prints the listening line, answers clients and exits on SIGTERM', async () => {
    const script = `import(${JSON.stringify(index)}).then((m) => m.runDevCommand({ port: 0 }))`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
    });
    const match = /^Temporal dev server listening on (127\.0\.0\.1:\d+)$/.exec(line);
    expect(match).not.toBeNull();
    const connection = await Connection.connect({ address: match![1]! });
    const info = await connection.workflowService.getSystemInfo({});
    expect(info.capabilities?.signalAndQueryHeader).toBe(true);
    await connection.close();
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
