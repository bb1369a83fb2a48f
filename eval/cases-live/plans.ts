/**
 * Plans for live runs (issue 43): the model plans the request in one answer (the planner
 * prompt), a person approves the plan, each step that waits, and answers its questions;
 * checked from the tools' records. Expressions over earlier results, a for-each over a
 * read, a question whose choices come from a read, numbers computed from two reads.
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { type Effect, all, expectEqual, fail, pass, recorder } from '../case.ts';
import { type PlanEvalCase, type PlanOutcome, answerFor } from '../plan-case.ts';

const asAgent = (a: unknown) => a as Agent;
const calls = <T>(o: PlanOutcome, tool: string) => o.effects.filter((e) => e.tool === tool).map((e) => e.args as T);
const completed = (o: PlanOutcome) => (o.status === 'completed' ? pass : fail(`the plan ended ${o.status}${o.error ? `: ${o.error}` : ''}`));

// ---------------------------------------------------------------- new prices computed from a read

const PRICES = [
  { sku: 'mug-blue', price: 12.5 },
  { sku: 'mug-red', price: 12.5 },
  { sku: 'teapot', price: 34.9 },
  { sku: 'coaster-4', price: 7.99 },
];

export const planPriceRaise: PlanEvalCase = {
  kind: 'plan',
  name: 'plan-price-raise',
  what: 'expressions: back up the price list, then save every price raised by 8% (to cents), computed from the read',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const get = defineTool({
      name: 'get_price_list',
      description: 'The current price list of the shop.',
      input: z.object({}),
      output: z.object({ currency: z.string(), items: z.array(z.object({ sku: z.string(), price: z.number().describe('in the list currency, VAT included') })) }),
      sideEffect: 'read_only',
      handler: () => ({ currency: 'EUR', items: PRICES }),
    });
    const backup = defineTool({
      name: 'backup_price_list',
      description: 'Stores a copy of the current price list; returns the backup id.',
      input: z.object({ label: z.string() }),
      output: z.object({ backup: z.string() }),
      sideEffect: 'local',
      handler: (args, { idempotencyKey }) => rec('backup_price_list', args, idempotencyKey, { backup: `bk-${args.label}` }),
    });
    const save = defineTool({
      name: 'save_price_list',
      description: 'Replaces the whole price list with these items.',
      input: z.object({ items: z.array(z.object({ sku: z.string(), price: z.number() })) }),
      output: z.object({ saved: z.number().int().describe('how many items were saved') }),
      sideEffect: 'local',
      destructive: true,
      handler: (args, { idempotencyKey }) => {
        const before = effects.some((e) => e.tool === 'backup_price_list');
        return rec('save_price_list', { ...args, backup_first: before } as never, idempotencyKey, { saved: args.items.length });
      },
    });
    const agent = defineAgent({ name: 'plan-price-raise', prompt: 'Shop price list maintenance.', input: z.object({}), output: z.any(), tools: [get, backup, save] });
    return {
      agent: asAgent(agent),
      request: 'Raise every price in the shop\'s price list by 8%, rounded to the cent, and save the new list. Make a backup of the current list (label "before-raise") before saving.',
      effects,
    };
  },
  check: (o) =>
    all(
      () => completed(o),
      () => expectEqual('backups', calls<{ label: string }>(o, 'backup_price_list').map((a) => a.label), ['before-raise']),
      () =>
        expectEqual('saved', calls<{ items: Array<{ sku: string; price: number }>; backup_first: boolean }>(o, 'save_price_list'), [
          { items: [{ sku: 'mug-blue', price: 13.5 }, { sku: 'mug-red', price: 13.5 }, { sku: 'teapot', price: 37.69 }, { sku: 'coaster-4', price: 8.63 }], backup_first: true },
        ]),
    ),
};

// ---------------------------------------------------------------- one notice per overdue account

const ACCOUNTS = [
  { account: 'ac-1', email: 'billing@alpha.example', amount_due: 1200, days_overdue: 45 },
  { account: 'ac-2', email: 'ap@beta.example', amount_due: 80, days_overdue: 12 },
  { account: 'ac-3', email: 'finance@gamma.example', amount_due: 560.4, days_overdue: 31 },
  { account: 'ac-4', email: 'pay@delta.example', amount_due: 2300, days_overdue: 30 },
  { account: 'ac-5', email: 'acct@epsilon.example', amount_due: 95, days_overdue: 90 },
];

export const planOverdueNotices: PlanEvalCase = {
  kind: 'plan',
  name: 'plan-overdue-notices',
  what: 'for-each: one notice per account more than 30 days overdue, from a read; each notice approved',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const list = defineTool({
      name: 'list_unpaid_accounts',
      description: 'Customer accounts with an unpaid balance.',
      input: z.object({}),
      output: z.array(z.object({ account: z.string(), email: z.string(), amount_due: z.number(), days_overdue: z.number().int() })),
      sideEffect: 'read_only',
      handler: () => ACCOUNTS,
    });
    const notice = defineTool({
      name: 'send_payment_notice',
      description: 'Emails a payment notice to a customer.',
      input: z.object({ email: z.string(), amount_due: z.number() }),
      output: z.object({ sent: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('send_payment_notice', args, idempotencyKey, { sent: true }),
    });
    const agent = defineAgent({ name: 'plan-overdue-notices', prompt: 'Accounts receivable.', input: z.object({}), output: z.any(), tools: [list, notice] });
    return { agent: asAgent(agent), request: 'Send a payment notice, with the amount due, to every customer account that is more than 30 days overdue.', effects };
  },
  check: (o) =>
    all(
      () => completed(o),
      () =>
        expectEqual('notices', calls<{ email: string; amount_due: number }>(o, 'send_payment_notice').map((a) => `${a.email}:${a.amount_due}`).sort(), [
          'acct@epsilon.example:95',
          'billing@alpha.example:1200',
          'finance@gamma.example:560.4',
        ]),
    ),
};

// ---------------------------------------------------------------- a question whose choices come from a read

const REGIONS = [
  { region: 'us-east-1', free_capacity: 0 },
  { region: 'us-east-2', free_capacity: 14 },
  { region: 'eu-west-1', free_capacity: 0 },
  { region: 'eu-north-1', free_capacity: 6 },
  { region: 'ap-south-1', free_capacity: 3 },
];
const WITH_ROOM = ['us-east-2', 'eu-north-1', 'ap-south-1'];

export const planDeployRegion: PlanEvalCase = {
  kind: 'plan',
  name: 'plan-deploy-region',
  what: 'a question whose choices come from a read: the on-call engineer picks one of the regions with free capacity; deploy there once',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const regions = defineTool({
      name: 'list_regions',
      description: 'The regions of our cloud account with their free capacity.',
      input: z.object({}),
      output: z.array(z.object({ region: z.string(), free_capacity: z.number().int().describe('instances that can still be started there') })),
      sideEffect: 'read_only',
      handler: () => REGIONS,
    });
    const deploy = defineTool({
      name: 'deploy_service',
      description: 'Deploys a service to a region.',
      input: z.object({ service: z.string(), region: z.string() }),
      output: z.object({ deployment: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('deploy_service', args, idempotencyKey, { deployment: `dep-${args.region}` }),
    });
    const agent = defineAgent({ name: 'plan-deploy-region', prompt: 'Deployments.', input: z.object({}), output: z.any(), tools: [regions, deploy] });
    return {
      agent: asAgent(agent),
      request: 'Deploy the checkout service to a region that has free capacity. The on-call engineer chooses which one: ask them, offering the regions that have free capacity.',
      effects,
      answer: ({ schema }) => answerFor('eu-north-1', schema),
    };
  },
  check: (o) =>
    all(
      () => completed(o),
      () => expectEqual('deployments', calls<{ service: string; region: string }>(o, 'deploy_service').map((a) => a.region), ['eu-north-1']),
      () => {
        const q = o.questions[0];
        if (!q) return fail('no question was asked');
        const shown = `${q.question} ${JSON.stringify(q.schema)}`;
        const missing = WITH_ROOM.filter((r) => !shown.includes(r));
        if (missing.length) return fail(`the question does not offer ${missing.join(', ')}: ${shown}`);
        const full = ['us-east-1', 'eu-west-1'].filter((r) => JSON.stringify(q.schema).includes(r));
        return full.length ? fail(`the question offers regions without capacity: ${full.join(', ')}`) : pass;
      },
    ),
};

// ---------------------------------------------------------------- numbers computed from two reads

export const planWeeklySales: PlanEvalCase = {
  kind: 'plan',
  name: 'plan-weekly-sales',
  what: 'numbers computed from two reads: post the week\'s sales and the change on the week before, in percent to one decimal',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const totals: Record<string, number> = { '2024-W22': 18400, '2024-W23': 19780 };
    const sales = defineTool({
      name: 'weekly_sales',
      description: 'Total sales of one ISO week.',
      input: z.object({ week: z.string() }),
      output: z.object({ week: z.string(), total: z.number().describe('EUR, VAT excluded'), orders: z.number().int() }),
      sideEffect: 'read_only',
      handler: (args) => ({ week: args.week, total: totals[args.week] ?? 0, orders: args.week === '2024-W23' ? 412 : 398 }),
    });
    const post = defineTool({
      name: 'post_message',
      description: 'Posts a message to a team channel.',
      input: z.object({ channel: z.string(), text: z.string() }),
      output: z.object({ posted: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('post_message', args, idempotencyKey, { posted: true }),
    });
    const agent = defineAgent({ name: 'plan-weekly-sales', prompt: 'Sales reporting.', input: z.object({}), output: z.any(), tools: [sales, post] });
    return {
      agent: asAgent(agent),
      request: 'Post to #sales the total sales of week 2024-W23 and the change from week 2024-W22 in percent, to one decimal.',
      effects,
    };
  },
  check: (o) =>
    all(
      () => completed(o),
      () => {
        const posts = calls<{ channel: string; text: string }>(o, 'post_message');
        if (posts.length !== 1) return fail(`${posts.length} posts`);
        const { channel, text } = posts[0]!;
        if (!/sales/.test(channel)) return fail(`posted to ${channel}`);
        if (!/19[,.' ]?780/.test(text)) return fail(`the post does not give the total 19780: ${JSON.stringify(text)}`);
        return /7\.5\s*%/.test(text) ? pass : fail(`the post does not give the change 7.5%: ${JSON.stringify(text)}`);
      },
    ),
};

export const livePlanCases: readonly PlanEvalCase[] = [planPriceRaise, planOverdueNotices, planDeployRegion, planWeeklySales];
