/**
 * The durable report job: crawl a site, write a report from what was found, render it,
 * upload it and email the link. Each step is a tool with the side-effect class it has in
 * real life: the crawl only reads (runs inline, may run again), rendering is local (inside
 * the pass, recorded in a task), the upload and the email are external (each its own
 * Temporal activity, at most once per task, its idempotency key sent to the service).
 * Kill the worker after the upload and the mission resumes: the upload is not repeated
 * and the email is sent once.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/navigator/index.ts';
import { crawl, mail, render, storage } from './services.ts';

export const answersFile = fileURLToPath(new URL('./answers.json', import.meta.url));

export const ReportInput = z.object({
  site: z
    .string()
    .regex(/^[a-z0-9.-]+$/)
    .describe('host name of the site to crawl'),
  week: z
    .string()
    .regex(/^\d{4}-W\d{2}$/)
    .describe('ISO week the report covers, e.g. 2026-W47'),
  recipient: z.string().email().describe('who gets the link'),
});

const Page = z.object({
  url: z.string(),
  title: z.string(),
  status: z.number(),
  latency_ms: z.number(),
  errors: z.number(),
});

export const crawlSite = defineTool({
  name: 'crawl_site',
  description: 'Crawls a site and returns its pages with status, latency and error count.',
  input: z.object({ site: z.string() }),
  output: z.array(Page),
  sideEffect: 'read_only',
  handler: ({ site }) => crawl(site),
});

export const renderReport = defineTool({
  name: 'render_report',
  description: 'Renders a report (title and sections of lines) as an HTML document.',
  input: z.object({
    title: z.string(),
    sections: z.array(z.object({ heading: z.string(), lines: z.array(z.string()) })),
  }),
  output: z.object({ html: z.string(), bytes: z.number() }),
  sideEffect: 'local',
  handler: ({ title, sections }) => render(title, sections),
});

export const uploadReport = defineTool({
  name: 'upload_report',
  description: 'Uploads an HTML document to the report store and returns its URL. External.',
  input: z.object({ name: z.string().describe('object name, e.g. shop.example-2026-W47.html'), html: z.string() }),
  output: z.object({ url: z.string(), bytes: z.number() }),
  sideEffect: 'external',
  handler: async (args, { idempotencyKey }) => {
    const stored = storage.upload(args, idempotencyKey);
    await slowAnswer();
    return stored;
  },
});

/**
 * A slow storage service, for `navigator demo report`: with REPORT_JOB_UPLOAD_PAUSE_MS set,
 * the answer comes that long after the report is stored, so a worker can be killed after
 * the upload happened and before its activity answered.
 */
const slowAnswer = async (): Promise<void> => {
  const ms = Number(process.env.REPORT_JOB_UPLOAD_PAUSE_MS ?? 0);
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
};

export const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends an email. External and irreversible.',
  input: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  output: z.object({ message_id: z.string(), to: z.string() }),
  sideEffect: 'external',
  handler: (args, { idempotencyKey }) => mail.send(args, idempotencyKey),
});

export const reportJob = defineAgent({
  name: 'report-job',
  description: 'Weekly site report: crawl, report, render, upload, email the link.',
  prompt:
    'Crawl {{site}} and write the report for {{week}}: how many pages, which are slow (over 800 ms) and which are broken ' +
    '(errors > 0). Render it, upload it as SITE-WEEK.html and email the link to {{recipient}}. Return the URL, the message id ' +
    'and the counts.',
  input: ReportInput,
  output: z.object({
    url: z.string(),
    message_id: z.string(),
    summary: z.object({ pages: z.number(), slow: z.number(), broken: z.number() }),
  }),
  tools: [crawlSite, renderReport, uploadReport, sendEmail],
  checklist: [
    { id: 'crawl', description: 'Crawl the site' },
    { id: 'report', description: 'Find slow and broken pages' },
    { id: 'render', description: 'Render the report' },
    { id: 'upload', description: 'Upload it' },
    { id: 'email', description: 'Email the link' },
  ],
  limits: { maxTurns: 3 },
});

export const defaultInput = { site: 'shop.example', week: '2026-W47', recipient: 'ops@example.com' };
