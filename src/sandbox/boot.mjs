// Entry of a sandbox thread: TypeScript sources need tsx's loader inside the thread too
// (a compiled package points workerData.entry at JavaScript and skips it).
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
