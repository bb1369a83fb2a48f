/** External effects: several in sequence, a flaky service to recover from, conditional effects, plan progress. */
import { z } from 'zod';
import { ToolRejected, defineAgent, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { type EvalCase, type Effect, all, effectsOf, expectEqual, fail, pass, recorder } from '../case.ts';

const externalTool = <I extends z.ZodObject>(effects: Effect[], name: string, description: string, input: I, output: z.ZodType, result: (args: z.output<I>) => unknown) => {
  const rec = recorder(effects);
  return defineTool({ name, description, input, output, sideEffect: 'external', handler: (args, { idempotencyKey }) => rec(name, args, idempotencyKey, result(args)) });
};

/** Each effect at most once per idempotency key: a repeated key is a duplicate effect. */
const noDuplicates = (o: { effects: readonly Effect[] }) => () => {
  const keys = o.effects.filter((e) => e.tool !== 'list_alerts' && e.tool !== 'fetch_metrics').map((e) => e.key);
  return new Set(keys).size === keys.length ? pass : fail('an effect ran twice for one idempotency key');
};

export const threeEmails: EvalCase = {
  name: 'three-emails',
  what: 'three external effects in sequence, each exactly once',
  make() {
    const effects: Effect[] = [];
    const send = externalTool(effects, 'send_email', 'Sends an email. External.', z.object({ to: z.string(), subject: z.string() }), z.object({ id: z.string() }), (a) => ({ id: `m_${a.to}` }));
    const agent = defineAgent({
      name: 'three-emails',
      prompt: 'Send the email "Welcome aboard" to each address in {{recipients}}, one email per address. Return the message ids in the same order.',
      input: z.object({ recipients: z.array(z.string()) }),
      output: z.object({ ids: z.array(z.string()) }),
      tools: [send],
    });
    return { agent: agent as unknown as Agent, input: { recipients: ['ann@example.com', 'bo@example.com', 'cy@example.com'] }, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('emails sent', effectsOf(o, 'send_email').map((e) => (e.args as { to: string; subject: string }).to), ['ann@example.com', 'bo@example.com', 'cy@example.com']),
      () => (effectsOf(o, 'send_email').every((e) => (e.args as { subject: string }).subject === 'Welcome aboard') ? pass : fail('a subject is not "Welcome aboard"')),
      () => expectEqual('result', o.result, { ids: ['m_ann@example.com', 'm_bo@example.com', 'm_cy@example.com'] }),
      noDuplicates(o),
    ),
};

export const rejectedName: EvalCase = {
  name: 'rejected-name',
  what: 'the service refuses a request (bad file name); the mission fixes it and uploads exactly once',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const upload = defineTool({
      name: 'upload_file',
      description: 'Uploads a text file to storage and returns its URL. External.',
      input: z.object({ name: z.string(), text: z.string() }),
      output: z.object({ url: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => {
        if (!/^[\w.-]+$/.test(args.name)) throw new ToolRejected(`invalid file name ${JSON.stringify(args.name)}: use only letters, digits, '.', '-' and '_'`);
        return rec('upload_file', args, idempotencyKey, { url: `https://files.example/${args.name}` });
      },
    });
    const agent = defineAgent({
      name: 'rejected-name',
      prompt: 'Upload a file named {{name}} containing {{text}}. If the storage refuses the name, change it as little as possible and upload again. Return the URL.',
      input: z.object({ name: z.string(), text: z.string() }),
      output: z.object({ url: z.string() }),
      tools: [upload],
      limits: { maxTurns: 4 },
    });
    return { agent: agent as unknown as Agent, input: { name: 'team notes.txt', text: 'hello' }, effects };
  },
  check: (o) => {
    const uploads = effectsOf(o, 'upload_file');
    const name = (uploads[0]?.args as { name?: string } | undefined)?.name ?? '';
    return all(
      () => (uploads.length === 1 ? pass : fail(`${uploads.length} uploads`)),
      () => (/^team[-_.]?notes\.txt$/.test(name) ? pass : fail(`uploaded as ${JSON.stringify(name)}`)),
      () => expectEqual('result', o.result, { url: `https://files.example/${name}` }),
    );
  },
};

const ALERTS = [
  { id: 'a1', severity: 2, title: 'disk 70%' },
  { id: 'a2', severity: 5, title: 'db down' },
  { id: 'a3', severity: 4, title: 'latency p99 3s' },
  { id: 'a4', severity: 1, title: 'cert expires in 60 days' },
  { id: 'a5', severity: 4, title: 'queue backlog' },
];

export const escalateHigh: EvalCase = {
  name: 'escalate-high',
  what: 'conditional effects: a ticket for exactly the alerts that need one',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const listAlerts = defineTool({
      name: 'list_alerts',
      description: 'Open monitoring alerts, severity 1 (low) to 5 (critical).',
      input: z.object({}),
      output: z.array(z.object({ id: z.string(), severity: z.number(), title: z.string() })),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('list_alerts', args, idempotencyKey, ALERTS),
    });
    const ticket = externalTool(effects, 'create_ticket', 'Opens an on-call ticket. External.', z.object({ alert_id: z.string(), title: z.string() }), z.object({ ticket: z.string() }), (a) => ({ ticket: `T-${a.alert_id}` }));
    const agent = defineAgent({
      name: 'escalate-high',
      prompt: 'Open an on-call ticket for every open alert of severity 4 or more (title: the alert title). Return the ticket ids.',
      input: z.object({}),
      output: z.object({ tickets: z.array(z.string()) }),
      tools: [listAlerts, ticket],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('tickets opened for', effectsOf(o, 'create_ticket').map((e) => (e.args as { alert_id: string }).alert_id).sort(), ['a2', 'a3', 'a5']),
      () => expectEqual('result', [...((o.result as { tickets?: string[] } | null)?.tickets ?? [])].sort(), ['T-a2', 'T-a3', 'T-a5']),
      noDuplicates(o),
    ),
};

export const planProgress: EvalCase = {
  name: 'plan-progress',
  what: 'a plan checklist: every step marked done, the publish effect once',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const fetchMetrics = defineTool({
      name: 'fetch_metrics',
      description: 'Yesterday\'s request counts per service.',
      input: z.object({}),
      output: z.array(z.object({ service: z.string(), requests: z.number() })),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) =>
        rec('fetch_metrics', args, idempotencyKey, [
          { service: 'api', requests: 1200 },
          { service: 'web', requests: 800 },
          { service: 'jobs', requests: 50 },
        ]),
    });
    const publish = externalTool(effects, 'publish_summary', 'Publishes a one-line summary to the team channel. External.', z.object({ text: z.string() }), z.object({ posted: z.boolean() }), () => ({ posted: true }));
    const agent = defineAgent({
      name: 'plan-progress',
      prompt: 'Publish yesterday\'s total request count and the busiest service as one line, e.g. "2050 requests, busiest: api". Return the total and the busiest service.',
      input: z.object({}),
      output: z.object({ total: z.number(), busiest: z.string() }),
      tools: [fetchMetrics, publish],
      checklist: [
        { id: 'fetch', description: 'Fetch the metrics' },
        { id: 'summarize', description: 'Compute the total and the busiest service' },
        { id: 'publish', description: 'Publish the summary' },
      ],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('result', o.result, { total: 2050, busiest: 'api' }),
      () => (effectsOf(o, 'publish_summary').length === 1 ? pass : fail(`published ${effectsOf(o, 'publish_summary').length} times`)),
      () => (/2050/.test(String((effectsOf(o, 'publish_summary')[0]?.args as { text?: string } | undefined)?.text)) ? pass : fail('the summary does not state 2050')),
      () => expectEqual('steps done', Object.keys(o.summaries).sort(), ['fetch', 'publish', 'summarize']),
    ),
};

export const effectCases = [threeEmails, rejectedName, escalateHigh, planProgress];
