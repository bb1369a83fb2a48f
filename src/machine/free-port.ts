/** A free TCP port, for a server this machine starts (the Temporal CLI's, Versity Gateway). */
import { createServer } from 'node:net';

/** A free TCP port on `ip` (bound, then released: good enough for a dev server on loopback). */
export function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, ip, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
