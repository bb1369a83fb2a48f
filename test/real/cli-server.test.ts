/**
 * Starting `temporal server start-dev` on ports picked free (real lane): a port is released
 * before the server binds it, so another process can take it first (test files start their
 * servers at the same moments). The server then exits during start-up; on picked ports it
 * is started again on others, on a port given explicitly the error says why.
 */
import { type Server, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/machine/free-port.ts';
import { type TemporalCliServer, findTemporalCli, startTemporalCliServer } from '../../src/temporal/cli-server.ts';

let holder: Server;
let taken: number;
const started: TemporalCliServer[] = [];
beforeAll(async () => {
  // another process's listener on the port
  holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  taken = (holder.address() as { port: number }).port;
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.shutdown()));
  await new Promise((resolve) => holder?.close(resolve));
});

describe.runIf(findTemporalCli() !== null)('startTemporalCliServer', () => {
  it('starts again on other ports when a picked one was taken first', { timeout: 180_000 }, async () => {
    // the first pick is the held port, as when another process took it in between
    const picks: number[] = [];
    const pick = async (ip: string) => {
      const port = picks.length === 0 ? taken : await freePort(ip);
      picks.push(port);
      return port;
    };
    const server = await startTemporalCliServer({ port: 0, uiPort: null }, pick);
    started.push(server);
    expect(picks[0]).toBe(taken);
    expect(server.address).toBe(`127.0.0.1:${picks[1]}`);
  });

  it('on a port given explicitly and taken, says the server exited during start-up', { timeout: 180_000 }, async () => {
    await expect(startTemporalCliServer({ port: taken, uiPort: null })).rejects.toThrow(
      new RegExp(`--port ${taken} .*: the server exited during start-up`),
    );
  });
});
