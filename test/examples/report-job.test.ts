/**
 * The durable report job: in library mode it does the whole job in one pass; on
 * Temporal, a worker SIGKILLed right after the upload reached the storage service is
 * replaced, the mission finishes, and the services' own records prove the upload and the
 * email each happened exactly once. The inspect commands the demo prints then work.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleAgents } from '../../examples/index.ts';
import { appliedCalls, defaultInput, readServices, reportJob } from '../../examples/report-job/index.ts';
import { runNavigator } from '../../src/navigator/index.ts';
import { type MissionEnv, eventually, missionEnv } from '../mission/harness.ts';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'report-job-')), 'services.jsonl');

describe('report job in library mode', () => {
  it('crawls, reports, renders, uploads and emails in one pass; again with the journal it does nothing', async () => {
    process.env.REPORT_JOB_SERVICES_FILE = fresh();
    const model = exampleAgents['report-job']!.model;
    const first = await runNavigator(reportJob, {
      input: defaultInput,
      journal: [],
      model: model(),
      runId: 'report-lib',
    });
    expect(first.status).toBe('ok');
    expect(first.value).toMatchObject({
      summary: { pages: 8, slow: 3, broken: 3 },
      url: expect.stringMatching(/^https:\/\/reports\.example\/shop\.example-2026-W47\.html/),
    });
    expect(appliedCalls().map((c) => c.operation)).toEqual(['upload_report', 'send_email']);
    const again = await runNavigator(reportJob, {
      input: defaultInput,
      journal: first.journal,
      model: model(),
      runId: 'report-lib',
    });
    expect(again.value).toEqual(first.value);
    expect(appliedCalls()).toHaveLength(2);
  });
});

describe('report job on Temporal, worker killed after the upload', () => {
  let m: MissionEnv;
  beforeAll(async () => {
    m = await missionEnv();
  }, 60_000);
  afterAll(() => m?.shutdown());

  it('the upload and the email each happen exactly once; the printed inspect commands work', async () => {
    const services = fresh();
    const markers = mkdtempSync(join(tmpdir(), 'report-markers-'));
    process.env.REPORT_JOB_SERVICES_FILE = services;
    const fixture = join(process.cwd(), 'test/examples/fixtures/stalling-report-job.ts');
    m.spawnWorker({ NAVIGATOR_AGENTS: fixture, REPORT_JOB_SERVICES_FILE: services, MARKER_DIR: markers });
    const handle = await m.start({ agent: 'report-job', input: defaultInput });
    await eventually(
      () => existsSync(join(markers, 'upload.marker')),
      90_000,
      'the upload to reach the storage service',
    );
    await m.killWorkers();
    expect(appliedCalls(services).map((c) => c.operation)).toEqual(['upload_report']);

    await m.startWorker();
    const result = (await handle.result()) as { url: string; message_id: string };
    expect(result.message_id).toMatch(/^msg_/);

    const applied = appliedCalls(services);
    expect(applied.map((c) => c.operation)).toEqual(['upload_report', 'send_email']);
    // the retried upload reached the service with the same key and changed nothing
    const uploads = readServices(services).filter((c) => c.operation === 'upload_report');
    expect(new Set(uploads.map((u) => u.idempotencyKey)).size).toBe(1);
    expect(uploads.slice(1).every((u) => u.outcome === 'deduplicated')).toBe(true);

    const audit = await m.audit(handle.workflowId);
    expect(audit.ok, JSON.stringify(audit.problems)).toBe(true);
    expect(audit.duplicateEffects).toEqual([]);

    // what the demo prints: npx navigator status|journal|ledger|audit ID
    const env = { ...process.env, TEMPORAL_ADDRESS: m.env.server.address, TEMPORAL_NAMESPACE: m.env.server.namespace };
    // (asynchronously: the embedded server answers from this very process)
    const cli = async (...args: string[]) =>
      (await promisify(execFile)(process.execPath, ['bin/navigator.mjs', ...args], { env, encoding: 'utf8' })).stdout;
    expect(await cli('status', handle.workflowId)).toContain('completed');
    expect(await cli('journal', handle.workflowId)).toContain('email_report_shop.example_2026-W47');
    expect(await cli('ledger', handle.workflowId)).toMatch(/upload_report/);
    expect(await cli('audit', handle.workflowId)).toContain('audit passed');
  }, 180_000);
});
