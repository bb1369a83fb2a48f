/**
 * `navigator demo` (what `npm start` runs): a complete mission on a fresh machine. With no
 * TEMPORAL_ADDRESS it starts the embedded dev server; it always runs its own worker on a
 * demo task queue. The wire-transfer agent runs on its recorded model answers, waits for
 * the manager, is approved through the same update as `navigator approve`, and finishes;
 * then the journal, the ledger and the audit are shown.
 */
import { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, action } from '../errors.ts';

export const say = (text = '') => process.stdout.write(text + '\n');
export const heading = (text: string) => say(`\n== ${text}`);

export const demoCommand = new Command('demo')
  .description(
    'run an example end to end (embedded Temporal unless TEMPORAL_ADDRESS is set): the wire-transfer mission, `demo plan` or `demo report`',
  )
  .argument(
    '[which]',
    '`mission` (the wire-transfer mission), `plan` (the workspace plan) or `report` (the durable report job)',
    'mission',
  )
  .option(
    '--keep',
    'keep the server and the worker running after the demo (until Ctrl-C), to try the commands it prints',
  )
  .action(
    action(async (which: string, flags: { keep?: boolean }) => {
      keepWanted = Boolean(flags.keep);
      if (which === 'plan') return (await import('./demo-plan.ts')).runPlanDemo();
      if (which === 'report') return (await import('./demo-report.ts')).runReportDemo();
      if (which !== 'mission') throw new CliError(`unknown demo ${which}: choose mission, plan or report`, 2);
      return runDemo();
    }),
  );

/** `--keep`: the demo's server and worker stay up after it, for the commands it prints. */
let keepWanted = false;

/**
 * The end of a demo. Its embedded server and worker stop with it, so the commands it
 * printed would find nothing: with --keep they stay until Ctrl-C, with the environment to
 * reach them; without, it says how to keep them.
 */
export async function endDemo(
  which: string,
  target: { address: string; namespace: string },
  taskQueue: string,
  embedded: boolean,
): Promise<void> {
  if (!keepWanted) {
    if (embedded)
      say(
        `\nThe demo's embedded server stops now. To try the commands on this run, keep it: npx navigator demo ${which} --keep`,
      );
    return;
  }
  heading(`Kept running until Ctrl-C: Temporal at ${target.address}, a worker on task queue ${taskQueue}`);
  say(
    `  in another terminal: export TEMPORAL_ADDRESS=${target.address} TEMPORAL_NAMESPACE=${target.namespace} NAVIGATOR_TASK_QUEUE=${taskQueue}`,
  );
  say(
    "  then: npx navigator console   # the web console on http://127.0.0.1:8233: this run's missions, passes, programs, ledger, audit",
  );
  const { untilInterrupted } = await import('./dev.ts');
  await untilInterrupted();
}

/** The embedded dev server unless Temporal's environment configuration names a cluster. */
export async function demoTarget() {
  const { resolveTarget } = await import('../../temporal/connection.ts');
  const { startDevServer } = await import('../../devserver/index.ts');
  const configured = resolveTarget();
  const server = configured.configured
    ? null
    : await startDevServer({ port: 0, searchAttributes: { NavigatorStatus: 'Keyword' } });
  const target = server ? { ...configured, address: server.address, namespace: server.namespace } : configured;
  heading(
    server
      ? `Embedded Temporal dev server on ${server.address}`
      : `Temporal cluster at ${target.address} (namespace ${target.namespace})`,
  );
  return { server, target };
}

async function runDemo(): Promise<void> {
  const { server, target } = await demoTarget();

  const bankDir = resolve('.navigator');
  mkdirSync(bankDir, { recursive: true });
  process.env.WIRE_TRANSFER_BANK_FILE = join(bankDir, `demo-bank-${Date.now()}.jsonl`);
  const taskQueue = `navigator-demo-${randomBytes(3).toString('hex')}`;
  const stopWorker = await startDemoWorker(target, taskQueue);
  try {
    await runMission(target, taskQueue, server !== null);
    await endDemo('mission', target, taskQueue, server !== null);
  } finally {
    await stopWorker();
    await server?.shutdown();
  }
}

export async function startDemoWorker(
  target: import('../../temporal/connection.ts').TemporalTarget,
  taskQueue: string,
) {
  const { Runtime, DefaultLogger } = await import('@temporalio/worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { connectClient, connectWorker } = await import('../../temporal/connection.ts');
  const { buildRegistry } = await import('../../worker/agents.ts');
  const { createNavigatorWorker } = await import('../../worker/index.ts');
  say(`Bundling the workflow code and starting a worker on task queue ${taskQueue} ...`);
  const connection = await connectWorker(target);
  const { client, close } = await connectClient(target);
  const worker = await createNavigatorWorker({
    connection,
    client,
    namespace: target.namespace,
    taskQueue,
    agents: await buildRegistry(),
  });
  const running = worker.run();
  return async () => {
    // Ctrl-C (demo --keep) has the Temporal runtime shut the worker down already
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await close();
    await connection.close();
  };
}

async function runMission(
  target: import('../../temporal/connection.ts').TemporalTarget,
  taskQueue: string,
  statusAttribute: boolean,
): Promise<void> {
  const { connectClient } = await import('../../temporal/connection.ts');
  const { describeSettled, ledgerLine, settle } = await import('../mission/view.ts');
  const { startMission } = await import('../../client/mission/client.ts');
  const { client, close } = await connectClient(target);
  try {
    const id = `wire-transfer-demo-${randomBytes(3).toString('hex')}`;
    const input = { recipient: 'bob', amount: 5000 };
    heading(`Starting mission ${id}: wire 5000 USD to bob (recorded model answers)`);
    const mission = await startMission(client, {
      agent: 'wire-transfer',
      input,
      taskQueue,
      id,
      // On the embedded server the status search attribute is registered, so it is shown too.
      ...(statusAttribute ? { options: { statusSearchAttribute: 'NavigatorStatus' } } : {}),
      summary: 'Navigator demo: wire-transfer',
    });
    const waiting = await settle(mission);
    say(describeSettled(id, waiting));

    heading('A manager approves (the same validated update as `navigator approve`)');
    const written = await mission.approve({ by: 'demo', note: 'approved in the demo' });
    say(`${written.key} = ${JSON.stringify(written.value)}`);
    const done = await settle(mission, { untilClosed: true });
    say(describeSettled(id, done));

    heading('Progress');
    say(await (await import('../mission/progress-view.ts')).progressForPeople(mission));
    heading('Journal (commit order)');
    for (const [k, v] of (await mission.journal()).entries) say(`${k}: ${JSON.stringify(v)}`);
    heading('Ledger (every tool call)');
    for (const e of await mission.ledger()) say(ledgerLine(e, DEMO_RESULT_CHARS));
    heading('The program the model wrote (the pass that sent the wire)');
    say(await (await import('./demo-program.ts')).workingProgram(client, id));
    heading('Audit against Temporal history');
    const report = await mission.audit();
    say(`journal rebuilt from history matches the workflow: ${report.journal.matches}`);
    for (const p of report.provenance) say(`  ${p.key}: committed by ${p.source} (event ${p.eventId})`);
    say(`external effects run twice: ${report.duplicateEffects.length}`);
    say(`replay with the current code: ${report.replay.ok ? 'deterministic' : report.replay.errors.join('; ')}`);
    say(report.ok ? 'audit passed' : 'audit FAILED');
    printByHand();
    if (!report.ok) process.exitCode = 1;
  } finally {
    await close();
  }
}

/** How much of a value the demos show in a summary line (the ledger and journal commands show it whole). */
export const DEMO_RESULT_CHARS = 160;

function printByHand(): void {
  heading('Do it by hand');
  say(`  terminal 1:  npx navigator dev                  # embedded Temporal + a Navigator worker
  terminal 2:  npx navigator run wire-transfer --input '{"recipient":"bob","amount":5000}'
               npx navigator approve <id>          # or: reject <id>, decide <id> KEY '"approved"'
               npx navigator watch <id>; npx navigator journal <id>; npx navigator ledger <id>
               npx navigator history <id>; npx navigator audit <id>
  web console: the address \`navigator dev\` prints (or \`npx navigator console\` on any cluster):
               the mission's checklist, passes and programs, ledger, timeline and audit; approve there`);
  heading('Against a real cluster');
  say(`  TEMPORAL_ADDRESS=host:7233 TEMPORAL_NAMESPACE=my-ns npx navigator worker --agents ./my-agents.ts
  TEMPORAL_ADDRESS=host:7233 TEMPORAL_NAMESPACE=my-ns npx navigator run wire-transfer --input '{"recipient":"bob","amount":5000}'
  (TLS, API keys and profiles come from Temporal's standard environment configuration.)`);
}
