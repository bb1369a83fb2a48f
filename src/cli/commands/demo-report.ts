/**
 * `navigator demo report` (`npm run demo:report`): the durable report job end to end, with
 * a crash. crawl → report → render → upload → email on the recorded model answers, run
 * by a worker process; once the storage service has stored the report (it answers
 * slowly), that worker is killed with SIGKILL and a fresh one is started, which finishes
 * the mission. Then the ledger (with why the upload was retried), what the fake services
 * recorded (the upload and the email each applied once) and the audit.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEMO_RESULT_CHARS, demoTarget, endDemo, heading, say } from './demo.ts';
import { type DemoWorker, DemoWorkers } from './demo-workers.ts';

/** How long the first worker's storage service takes to answer: longer than the demo waits. */
const STALLED_UPLOAD_MS = 10 * 60_000;

export async function runReportDemo(): Promise<void> {
  const { Runtime, DefaultLogger } = await import('@temporalio/worker');
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the audit's replay worker: warnings only
  const { server, target } = await demoTarget();
  // a native connection held for the demo keeps the SDK's runtime up between the replay
  // workers its reads and its audit build (the runtime shuts down with its last native object)
  const { connectWorker } = await import('../../temporal/connection.ts');
  const keepRuntime = await connectWorker(target);
  const dir = resolve('.navigator');
  mkdirSync(dir, { recursive: true });
  const stamp = Date.now();
  process.env.REPORT_JOB_SERVICES_FILE ??= join(dir, `report-job-services-${stamp}.jsonl`);
  const taskQueue = `navigator-demo-${randomBytes(3).toString('hex')}`;
  const workers = new DemoWorkers(target, taskQueue, join(dir, `report-demo-${stamp}`));
  try {
    const first = workers.spawn({ REPORT_JOB_UPLOAD_PAUSE_MS: String(STALLED_UPLOAD_MS) });
    say(
      `Started ${first.name} (pid ${first.pid}, log ${first.log}) on task queue ${taskQueue}; its storage service answers slowly`,
    );
    const ok = await runJob(target, taskQueue, workers, first);
    printCommands(server === null);
    if (!ok) process.exitCode = 1;
    await endDemo('report', target, taskQueue, server !== null);
  } finally {
    await workers.stopAll();
    await keepRuntime.close();
    await server?.shutdown();
  }
}

type Services = typeof import('../../../examples/report-job/index.ts');

async function runJob(
  target: import('../../temporal/connection.ts').TemporalTarget,
  taskQueue: string,
  workers: DemoWorkers,
  first: DemoWorker,
): Promise<boolean> {
  const { connectClient } = await import('../../temporal/connection.ts');
  const { follow } = await import('../mission/follow.ts');
  const { describeSettled, ledgerLine } = await import('../mission/view.ts');
  const { startMission } = await import('../../client/mission/client.ts');
  const services = await import('../../../examples/report-job/index.ts');
  const { defaultInput, readServices, servicesFile } = services;
  const { client, close } = await connectClient(target);
  try {
    const id = `report-job-demo-${randomBytes(3).toString('hex')}`;
    heading(`Starting mission ${id}: the weekly report of ${defaultInput.site} (recorded model answers)`);
    const mission = await startMission(client, {
      agent: 'report-job',
      input: defaultInput,
      taskQueue,
      id,
      summary: 'Navigator demo: report-job',
    });
    const following = follow(mission, { write: (line) => say(`  ${line}`), untilClosed: true });
    const second = await crashAfterUpload(services, workers, first);
    const done = await following;
    say(describeSettled(id, done));
    const retried = readServices().find((r) => r.operation === 'upload_report' && r.outcome === 'deduplicated');
    const ready = await second.ready.catch(() => null);
    if (retried && ready)
      say(
        `${second.name} was ready ${((ready - second.startedAt) / 1000).toFixed(1)} s after it started; it retried the upload ${((Date.parse(retried.at) - ready) / 1000).toFixed(1)} s after that (the storage service answered: already stored).`,
      );

    heading('Progress');
    say(await (await import('../mission/progress-view.ts')).progressForPeople(mission));
    heading('Journal (commit order)');
    for (const [k, v] of (await mission.journal()).entries)
      say(`${k}: ${JSON.stringify(v).slice(0, DEMO_RESULT_CHARS)}`);
    heading('Ledger (every tool call)');
    for (const e of await mission.ledger()) say(ledgerLine(e, DEMO_RESULT_CHARS));
    heading(`What the services recorded (${servicesFile()})`);
    const records = readServices();
    for (const r of records) say(`${r.operation} ${r.outcome} key ${r.idempotencyKey.slice(0, 12)}…`);
    const applied = (op: string) => records.filter((r) => r.operation === op && r.outcome === 'applied').length;
    say(`applied: upload_report ${applied('upload_report')} time(s), send_email ${applied('send_email')} time(s)`);
    heading('Audit against Temporal history');
    const report = await mission.audit();
    say(
      `external effects run twice: ${report.duplicateEffects.length}; replay: ${report.replay.ok ? 'deterministic' : report.replay.errors.join('; ')}`,
    );
    say(report.ok ? 'audit passed' : 'audit FAILED');
    // what failed, so a failed audit says why
    for (const p of [
      ...report.problems,
      ...report.values.mismatches.map((m) => m.message),
      ...report.valueReplay.mismatches.map((m) => m.message),
      ...report.replay.errors,
    ])
      say(`  problem: ${p}`);
    say(
      `\nInspect it: npx navigator status ${id}; npx navigator journal ${id}; npx navigator ledger ${id}; npx navigator audit ${id}`,
    );
    return report.ok && !done.closed?.failure && applied('upload_report') === 1 && applied('send_email') === 1;
  } finally {
    await close();
  }
}

/**
 * Waits until the storage service has stored the report (the first worker's upload is
 * then in flight: its answer is slow), kills that worker with SIGKILL and starts a fresh
 * one, which it returns with the time it was started.
 */
async function crashAfterUpload(
  services: Services,
  workers: DemoWorkers,
  first: DemoWorker,
): Promise<DemoWorker & { startedAt: number }> {
  const stored = () => services.readServices().some((r) => r.operation === 'upload_report' && r.outcome === 'applied');
  const deadline = Date.now() + 5 * 60_000;
  while (!stored()) {
    if (first.child.exitCode !== null)
      throw new Error(`${first.name} exited (code ${first.child.exitCode}) before the upload; see ${first.log}`);
    if (Date.now() > deadline)
      throw new Error(`the upload did not reach the storage service in 5 minutes; see ${first.log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await workers.kill(first);
  say(
    `  ${time()} the storage service stored the report; ${first.name} (pid ${first.pid}) is killed with SIGKILL before its upload activity answered`,
  );
  const startedAt = Date.now();
  const second = workers.spawn();
  say(
    `  ${time()} started ${second.name} (pid ${second.pid}, log ${second.log}): Temporal retries the upload there once the dead worker's heartbeat is 5 s late`,
  );
  return { ...second, startedAt };
}

const time = () => new Date().toTimeString().slice(0, 8);

function printCommands(cluster: boolean): void {
  heading('Kill it and resume it by hand');
  say(`  terminal 1:  npx navigator dev --no-worker                   # embedded Temporal (${cluster ? 'or your cluster' : 'keeps the mission after the worker dies'})
  terminal 2:  npx navigator worker                             # kill it (Ctrl-C or kill -9) after the upload ...
  terminal 3:  npx navigator run report-job --input '{"site":"shop.example","week":"2026-W47","recipient":"ops@example.com"}'
  terminal 2:  npx navigator worker                             # ... and start it again: the mission resumes, nothing runs twice
  then:        npx navigator ledger <id>; npx navigator audit <id>`);
}
