/**
 * `navigator demo report` (`npm run demo:report`): the durable report job end to end:
 * crawl → report → render → upload → email on the recorded model answers, followed live,
 * then the journal, the ledger, what the fake services recorded (each upload and email
 * once) and the audit, and the commands to inspect it or to resume it after a kill.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEMO_RESULT_CHARS, demoTarget, endDemo, heading, say, startDemoWorker } from './demo.ts';

export async function runReportDemo(): Promise<void> {
  const { server, target } = await demoTarget();
  const dir = resolve('.navigator');
  mkdirSync(dir, { recursive: true });
  process.env.REPORT_JOB_SERVICES_FILE ??= join(dir, `report-job-services-${Date.now()}.jsonl`);
  const taskQueue = `navigator-demo-${randomBytes(3).toString('hex')}`;
  const stopWorker = await startDemoWorker(target, taskQueue);
  try {
    const ok = await runJob(target, taskQueue);
    printCommands(server === null);
    if (!ok) process.exitCode = 1;
    await endDemo('report', target, taskQueue, server !== null);
  } finally {
    await stopWorker();
    await server?.shutdown();
  }
}

async function runJob(target: import('../../temporal/connection.ts').TemporalTarget, taskQueue: string): Promise<boolean> {
  const { connectClient } = await import('../../temporal/connection.ts');
  const { follow } = await import('../follow.ts');
  const { describeSettled, ledgerLine } = await import('../mission-view.ts');
  const { startMission } = await import('../../client/missions.ts');
  const { defaultInput, readServices, servicesFile } = await import('../../../examples/report-job/index.ts');
  const { client, close } = await connectClient(target);
  try {
    const id = `report-job-demo-${randomBytes(3).toString('hex')}`;
    heading(`Starting mission ${id}: the weekly report of ${defaultInput.site} (recorded model answers)`);
    const mission = await startMission(client, { agent: 'report-job', input: defaultInput, taskQueue, id, summary: 'Navigator demo: report-job' });
    const done = await follow(mission, { write: (line) => say(`  ${line}`), untilClosed: true });
    say(describeSettled(id, done));

    heading('Progress');
    say(await (await import('../progress-view.ts')).progressForPeople(mission));
    heading('Journal (commit order)');
    for (const [k, v] of (await mission.journal()).entries) say(`${k}: ${JSON.stringify(v).slice(0, DEMO_RESULT_CHARS)}`);
    heading('Ledger (every tool call)');
    for (const e of await mission.ledger()) say(ledgerLine(e, DEMO_RESULT_CHARS));
    heading(`What the services recorded (${servicesFile()})`);
    for (const r of readServices()) say(`${r.operation} ${r.outcome} key ${r.idempotencyKey.slice(0, 12)}…`);
    heading('Audit against Temporal history');
    const report = await mission.audit();
    say(`external effects run twice: ${report.duplicateEffects.length}; replay: ${report.replay.ok ? 'deterministic' : report.replay.errors.join('; ')}`);
    say(report.ok ? 'audit passed' : 'audit FAILED');
    say(`\nInspect it: npx navigator status ${id}; npx navigator journal ${id}; npx navigator ledger ${id}; npx navigator audit ${id}`);
    return report.ok && !done.closed?.failure;
  } finally {
    await close();
  }
}

function printCommands(cluster: boolean): void {
  heading('Kill it and resume it by hand');
  say(`  terminal 1:  npx navigator dev --no-worker                   # embedded Temporal (${cluster ? 'or your cluster' : 'keeps the mission after the worker dies'})
  terminal 2:  npx navigator worker                             # kill it (Ctrl-C or kill -9) after the upload ...
  terminal 3:  npx navigator run report-job --input '{"site":"shop.example","week":"2026-W47","recipient":"ops@example.com"}'
  terminal 2:  npx navigator worker                             # ... and start it again: the mission resumes, nothing runs twice
  then:        npx navigator ledger <id>; npx navigator audit <id>`);
}
