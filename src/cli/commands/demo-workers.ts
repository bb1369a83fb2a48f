/**
 * Worker processes for a demo that kills one: `navigator worker` run as a child of the
 * demo (the same CLI entry and Node flags), its log in a file, SIGKILLed like a crash.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { TemporalTarget } from '../../temporal/connection.ts';

export interface DemoWorker {
  name: string;
  pid: number;
  log: string;
  child: ChildProcess;
  /** resolves with the time the worker said it runs (it then polls); rejects if it exits first */
  ready: Promise<number>;
}

/** What `navigator worker` prints once it polls its task queue. */
const READY_LINE = 'Navigator worker on ';

export class DemoWorkers {
  private readonly running: DemoWorker[] = [];

  constructor(
    private readonly target: TemporalTarget,
    private readonly taskQueue: string,
    /** where the workers' logs go: `${logPrefix}-worker-N.log` */
    private readonly logPrefix: string,
  ) {}

  /** Starts `navigator worker` on the demo's task queue, with `env` added to the demo's. */
  spawn(env: Record<string, string> = {}): DemoWorker {
    const n = this.running.length + 1;
    const log = `${this.logPrefix}-worker-${n}.log`;
    const entry = process.argv[1];
    if (!entry) throw new Error('cannot start a worker: the navigator CLI entry is unknown');
    const child = spawn(process.execPath, [...process.execArgv, entry, 'worker', '--task-queue', this.taskQueue], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: this.target.address,
        TEMPORAL_NAMESPACE: this.target.namespace,
        NAVIGATOR_TASK_QUEUE: this.taskQueue,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = createWriteStream(log);
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
    const name = `worker ${n}`;
    const ready = new Promise<number>((resolve, reject) => {
      let seen = '';
      child.stdout!.on('data', (d) => {
        seen = (seen + String(d)).slice(-4096);
        if (seen.includes(READY_LINE)) resolve(Date.now());
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`${name} exited (${signal ?? `code ${code}`}) before it was ready; see ${log}`)),
      );
    });
    ready.catch(() => undefined); // a worker killed before it was ready is not an unhandled rejection
    const worker = { name, pid: child.pid ?? -1, log, child, ready };
    this.running.push(worker);
    return worker;
  }

  /** SIGKILL, as a crash: no shutdown, no goodbye to Temporal. Resolves once it is gone. */
  async kill(worker: DemoWorker): Promise<void> {
    if (!alive(worker.child)) return;
    const gone = new Promise((resolve) => worker.child.once('exit', resolve));
    worker.child.kill('SIGKILL');
    await gone;
  }

  /** Stops every worker still running (SIGTERM: a graceful shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all(
      this.running
        .filter((w) => alive(w.child))
        .map((w) => new Promise((resolve) => (w.child.once('exit', resolve), w.child.kill('SIGTERM')))),
    );
  }
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
