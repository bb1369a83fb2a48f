/**
 * Missions for live runs (issue 43), written before any prompt change of that issue and
 * not tuned to it: reads then effects, refusals the program must handle, dates, effects
 * that wait for a person's approval, a decision, a mission lost mid-way and resumed, long
 * reads, lookups. Each tool records what it did; the checks read only those records and
 * the mission's result.
 */
import { z } from 'zod';
import { ToolRejected, decisionKey, defineAgent, defineDecision, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import type { Json } from '../../src/lisp/tools.ts';
import { type EvalCase, type Effect, type Outcome, all, effectsOf, expectEqual, fail, pass, recorder } from '../case.ts';

const asAgent = (a: unknown) => a as Agent;
const argsOf = <T>(o: Outcome, tool: string) => effectsOf(o, tool).map((e) => e.args as T);
const sorted = (xs: readonly string[]) => [...xs].sort();
/** A map with its keys in order, so maps compare whatever order they were built in. */
const keyed = (m: unknown) => (m && typeof m === 'object' && !Array.isArray(m) ? Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b))) : m);

/** Each effect at most once per idempotency key, and per tool at most `max` calls. */
const onceEach = (o: Outcome, tool: string, subject: (args: Json) => string) => () => {
  const subjects = effectsOf(o, tool).map((e) => subject(e.args));
  const dup = subjects.find((s, i) => subjects.indexOf(s) !== i);
  return dup === undefined ? pass : fail(`${tool} ran twice for ${dup}`);
};

/** Internal wording of the product that must not reach a business record. */
const PRODUCT_WORDING = /tool\/|rejected the call|ToolRejected|denied by|approval denied|\bfailed: tool\b/i;

// ---------------------------------------------------------------- refunds within the window

const REFUND_REQUESTS = [
  { id: 'rr-101', order: 'o-5521', customer: 'Mira Haas', amount: 89.0, purchased_on: '2024-05-02', reason: 'Item arrived with a cracked screen' },
  { id: 'rr-102', order: 'o-5530', customer: 'Tom Berg', amount: 240.0, purchased_on: '2024-05-10', reason: 'Changed my mind about the colour' },
  { id: 'rr-103', order: 'o-5388', customer: 'Lena Ruiz', amount: 35.5, purchased_on: '2024-03-28', reason: 'Wrong size delivered' },
  { id: 'rr-104', order: 'o-5602', customer: 'Ken Ito', amount: 149.99, purchased_on: '2024-05-20', reason: 'Package never arrived' },
  { id: 'rr-105', order: 'o-5611', customer: 'Ada Novak', amount: 150.01, purchased_on: '2024-05-21', reason: 'Duplicate charge on my card' },
  { id: 'rr-106', order: 'o-5450', customer: 'Raj Patel', amount: 12.0, purchased_on: '2024-04-28', reason: 'Missing accessory in the box' },
];

export const refundWindow: EvalCase = {
  name: 'live-refund-window',
  what: 'reads then effects, dates: refund requests within 30 days and up to 150, decline the others with the rule they broke',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const list = defineTool({
      name: 'list_refund_requests',
      description: 'Open refund requests of the shop.',
      input: z.object({}),
      output: z.array(
        z.object({
          id: z.string(),
          order: z.string(),
          customer: z.string(),
          amount: z.number().describe('what the customer paid, in EUR'),
          purchased_on: z.string().describe('date of purchase, YYYY-MM-DD'),
          reason: z.string().describe("the customer's own words"),
        }),
      ),
      sideEffect: 'read_only',
      handler: () => REFUND_REQUESTS,
    });
    const refund = defineTool({
      name: 'issue_refund',
      description: 'Pays the amount back to the customer for a refund request.',
      input: z.object({ request_id: z.string(), amount: z.number() }),
      output: z.object({ refund_id: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('issue_refund', args, idempotencyKey, { refund_id: `rf-${args.request_id}` }),
    });
    const decline = defineTool({
      name: 'decline_refund',
      description: 'Closes a refund request as declined and emails the customer the note.',
      input: z.object({ request_id: z.string(), note: z.string() }),
      output: z.object({ closed: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('decline_refund', args, idempotencyKey, { closed: true }),
    });
    const agent = defineAgent({
      name: 'live-refund-window',
      prompt:
        'Today is {{today}}. Work through the open refund requests. Our policy: a refund is granted when the purchase was at most 30 days ago ' +
        'and the amount is at most 150 EUR. Refund every request that meets the policy (the full amount); decline every other one with a short note ' +
        'to the customer naming the rule it breaks (too old, or over 150 EUR). Return {:refunded [request ids] :declined [request ids]}.',
      input: z.object({ today: z.string() }),
      output: z.object({ refunded: z.array(z.string()), declined: z.array(z.string()) }),
      tools: [list, refund, decline],
    });
    return { agent: asAgent(agent), input: { today: '2024-05-28' }, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('refunds', sorted(argsOf<{ request_id: string; amount: number }>(o, 'issue_refund').map((a) => `${a.request_id}:${a.amount}`)), ['rr-101:89', 'rr-104:149.99', 'rr-106:12']),
      () => expectEqual('declined', sorted(argsOf<{ request_id: string }>(o, 'decline_refund').map((a) => a.request_id)), ['rr-102', 'rr-103', 'rr-105']),
      () => {
        const notes = Object.fromEntries(argsOf<{ request_id: string; note: string }>(o, 'decline_refund').map((a) => [a.request_id, a.note]));
        if (!/150/.test(notes['rr-102'] ?? '') || !/150/.test(notes['rr-105'] ?? '')) return fail(`the notes of rr-102 and rr-105 must name the 150 EUR limit: ${JSON.stringify(notes)}`);
        return /30 days|too old|older/i.test(notes['rr-103'] ?? '') ? pass : fail(`the note of rr-103 must say it is too old: ${JSON.stringify(notes['rr-103'])}`);
      },
      () => {
        const r = o.result as { refunded?: string[]; declined?: string[] } | null;
        return expectEqual('result', { refunded: sorted(r?.refunded ?? []), declined: sorted(r?.declined ?? []) }, { refunded: ['rr-101', 'rr-104', 'rr-106'], declined: ['rr-102', 'rr-103', 'rr-105'] });
      },
      onceEach(o, 'issue_refund', (a) => (a as { request_id: string }).request_id),
      onceEach(o, 'decline_refund', (a) => (a as { request_id: string }).request_id),
    ),
};

// ---------------------------------------------------------------- coupons the shop refuses

const COUPON_ORDERS = [
  { order: 'o-301', customer: 'c-11', code: 'SPRING10' },
  { order: 'o-302', customer: 'c-12', code: 'WELCOME5' },
  { order: 'o-303', customer: 'c-13', code: 'SPRING10' },
  { order: 'o-304', customer: 'c-14', code: 'VIP20' },
];
const COUPON_REFUSALS: Record<string, string> = {
  'o-302': 'coupon WELCOME5 is only valid on a first order',
  'o-304': 'order o-304 has already shipped and can no longer be changed',
};

export const couponRefusals: EvalCase = {
  name: 'live-coupon-refusals',
  what: 'refusals handled in the program: the shop refuses two of four coupons; each customer whose coupon was refused is told the shop\'s reason',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const apply = defineTool({
      name: 'apply_coupon',
      description: 'Applies a coupon code to an order in the shop. The shop refuses codes that do not apply, saying why.',
      input: z.object({ order: z.string(), code: z.string() }),
      output: z.object({ order: z.string(), discount: z.number() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => {
        const refusal = COUPON_REFUSALS[args.order];
        if (refusal) throw new ToolRejected(refusal);
        return rec('apply_coupon', args, idempotencyKey, { order: args.order, discount: args.code === 'VIP20' ? 20 : 10 });
      },
    });
    const message = defineTool({
      name: 'message_customer',
      description: 'Sends a message to a customer through the shop\'s support inbox.',
      input: z.object({ customer: z.string(), text: z.string() }),
      output: z.object({ sent: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('message_customer', args, idempotencyKey, { sent: true }),
    });
    const agent = defineAgent({
      name: 'live-coupon-refusals',
      prompt:
        'Apply the coupon each customer asked for to their order: {{requests}}. When the shop refuses a coupon, message that customer ' +
        'explaining, in the shop\'s own words, why their coupon could not be applied. Return {:applied [orders] :refused [orders]}.',
      input: z.object({ requests: z.array(z.object({ order: z.string(), customer: z.string(), code: z.string() })) }),
      output: z.object({ applied: z.array(z.string()), refused: z.array(z.string()) }),
      tools: [apply, message],
    });
    return { agent: asAgent(agent), input: { requests: COUPON_ORDERS }, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('coupons applied', sorted(argsOf<{ order: string }>(o, 'apply_coupon').map((a) => a.order)), ['o-301', 'o-303']),
      () => {
        const msgs = argsOf<{ customer: string; text: string }>(o, 'message_customer');
        const to = sorted(msgs.map((m) => m.customer));
        if (JSON.stringify(to) !== JSON.stringify(['c-12', 'c-14'])) return fail(`messages to ${JSON.stringify(to)}, expected c-12 and c-14`);
        for (const m of msgs) {
          const reason = m.customer === 'c-12' ? COUPON_REFUSALS['o-302']! : COUPON_REFUSALS['o-304']!;
          if (!m.text.includes(reason)) return fail(`the message to ${m.customer} does not give the shop's reason: ${JSON.stringify(m.text)}`);
          if (PRODUCT_WORDING.test(m.text)) return fail(`the message to ${m.customer} carries internal wording: ${JSON.stringify(m.text)}`);
        }
        return pass;
      },
      () => {
        const r = o.result as { applied?: string[]; refused?: string[] } | null;
        return expectEqual('result', { applied: sorted(r?.applied ?? []), refused: sorted(r?.refused ?? []) }, { applied: ['o-301', 'o-303'], refused: ['o-302', 'o-304'] });
      },
    ),
};

// ---------------------------------------------------------------- renewals by date

const SUBSCRIPTIONS = [
  { id: 'sub-1', customer: 'Northwind', plan: 'team', renews_on: '2024-07-03', auto_renew: true },
  { id: 'sub-2', customer: 'Contoso', plan: 'pro', renews_on: '2024-06-30', auto_renew: false },
  { id: 'sub-3', customer: 'Fabrikam', plan: 'team', renews_on: '2024-07-09', auto_renew: true },
  { id: 'sub-4', customer: 'Tailspin', plan: 'starter', renews_on: '2024-07-08', auto_renew: true },
  { id: 'sub-5', customer: 'Litware', plan: 'pro', renews_on: '2024-06-27', auto_renew: true },
  { id: 'sub-6', customer: 'Proseware', plan: 'team', renews_on: '2024-08-01', auto_renew: true },
];

export const renewalReminders: EvalCase = {
  name: 'live-renewal-reminders',
  what: 'dates: remind the customers whose subscription renews in the next 7 days, with the days left; none for past dates or later ones',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const list = defineTool({
      name: 'list_subscriptions',
      description: 'All subscriptions with their next renewal date.',
      input: z.object({}),
      output: z.array(z.object({ id: z.string(), customer: z.string(), plan: z.string(), renews_on: z.string(), auto_renew: z.boolean() })),
      sideEffect: 'read_only',
      handler: () => SUBSCRIPTIONS,
    });
    const remind = defineTool({
      name: 'send_renewal_notice',
      description: 'Emails a customer that their subscription renews soon.',
      input: z.object({ subscription: z.string(), days_left: z.number().int(), renews_on: z.string() }),
      output: z.object({ sent: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('send_renewal_notice', args, idempotencyKey, { sent: true }),
    });
    const agent = defineAgent({
      name: 'live-renewal-reminders',
      prompt:
        'Today is {{today}}. Send a renewal notice for every subscription that renews automatically within the next 7 days ' +
        '(today up to and including the 7th day from today), with the number of days left. Return {:notified [subscription ids, soonest renewal first]}.',
      input: z.object({ today: z.string() }),
      output: z.object({ notified: z.array(z.string()) }),
      tools: [list, remind],
    });
    return { agent: asAgent(agent), input: { today: '2024-07-01' }, effects };
  },
  check: (o) =>
    all(
      () =>
        expectEqual('notices', sorted(argsOf<{ subscription: string; days_left: number; renews_on: string }>(o, 'send_renewal_notice').map((a) => `${a.subscription}:${a.days_left}:${a.renews_on}`)), [
          'sub-1:2:2024-07-03',
          'sub-4:7:2024-07-08',
        ]),
      () => expectEqual('result', o.result, { notified: ['sub-1', 'sub-4'] }),
      onceEach(o, 'send_renewal_notice', (a) => (a as { subscription: string }).subscription),
    ),
};

// ---------------------------------------------------------------- payments a person approves

const BILLS = [
  { bill: 'b-71', vendor: 'Acme Paper', amount: 420.0, due: '2024-09-05', status: 'open' },
  { bill: 'b-72', vendor: 'Globex Cloud', amount: 1890.5, due: '2024-09-02', status: 'open' },
  { bill: 'b-73', vendor: 'Initech Facilities', amount: 760.0, due: '2024-09-20', status: 'open' },
  { bill: 'b-74', vendor: 'Umbrella Legal', amount: 3100.0, due: '2024-08-30', status: 'paid' },
  { bill: 'b-75', vendor: 'Hooli Catering', amount: 215.25, due: '2024-09-06', status: 'open' },
];

export const vendorPayments: EvalCase = {
  name: 'live-vendor-payments',
  what: 'effects that need approval: pay the open bills due this week; each payment waits for finance, which approves all',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const list = defineTool({
      name: 'list_bills',
      description: 'Vendor bills in accounts payable.',
      input: z.object({}),
      output: z.array(z.object({ bill: z.string(), vendor: z.string(), amount: z.number(), due: z.string(), status: z.enum(['open', 'paid']) })),
      sideEffect: 'read_only',
      handler: () => BILLS,
    });
    const pay = defineTool({
      name: 'pay_bill',
      description: 'Pays a vendor bill from the company account.',
      input: z.object({ bill: z.string(), amount: z.number() }),
      output: z.object({ payment: z.string() }),
      sideEffect: 'external',
      requiresApproval: true,
      handler: (args, { idempotencyKey }) => rec('pay_bill', args, idempotencyKey, { payment: `pay-${args.bill}` }),
    });
    const agent = defineAgent({
      name: 'live-vendor-payments',
      prompt: 'Today is {{today}}. Pay every open bill due in the next 7 days (up to and including {{until}}). Return {:paid [bill ids] :total amount paid}.',
      input: z.object({ today: z.string(), until: z.string() }),
      output: z.object({ paid: z.array(z.string()), total: z.number() }),
      tools: [list, pay],
    });
    return { agent: asAgent(agent), input: { today: '2024-09-01', until: '2024-09-08' }, effects, approve: () => true };
  },
  check: (o) =>
    all(
      () => expectEqual('payments', sorted(argsOf<{ bill: string; amount: number }>(o, 'pay_bill').map((a) => `${a.bill}:${a.amount}`)), ['b-71:420', 'b-72:1890.5', 'b-75:215.25']),
      () => {
        const r = o.result as { paid?: string[]; total?: number } | null;
        return expectEqual('result', { paid: sorted(r?.paid ?? []), total: Math.round((r?.total ?? 0) * 100) / 100 }, { paid: ['b-71', 'b-72', 'b-75'], total: 2525.75 });
      },
      onceEach(o, 'pay_bill', (a) => (a as { bill: string }).bill),
    ),
};

// ---------------------------------------------------------------- a payment a person denies

const CONTRACTORS = [
  { contractor: 'ct-1', name: 'Jo Kim', hours: 32, rate: 55 },
  { contractor: 'ct-2', name: 'Sam Ode', hours: 40, rate: 70 },
  { contractor: 'ct-3', name: 'Eva Lund', hours: 12.5, rate: 80 },
];
const DENIAL = "ct-2's bank details changed yesterday and are not verified yet";

export const contractorPayouts: EvalCase = {
  name: 'live-contractor-payouts',
  what: 'effects that need approval, one denied with a reason: the others are paid, the denied one is put on hold with the person\'s reason',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const timesheets = defineTool({
      name: 'approved_timesheets',
      description: "This month's approved contractor timesheets.",
      input: z.object({}),
      output: z.array(z.object({ contractor: z.string(), name: z.string(), hours: z.number(), rate: z.number().describe('EUR per hour') })),
      sideEffect: 'read_only',
      handler: () => CONTRACTORS,
    });
    const payout = defineTool({
      name: 'send_payout',
      description: 'Transfers money to a contractor.',
      input: z.object({ contractor: z.string(), amount: z.number() }),
      output: z.object({ transfer: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('send_payout', args, idempotencyKey, { transfer: `tr-${args.contractor}` }),
    });
    const hold = defineTool({
      name: 'put_on_hold',
      description: "Marks a contractor's payout as on hold, with the reason shown to the contractor and to accounting.",
      input: z.object({ contractor: z.string(), reason: z.string() }),
      output: z.object({ held: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('put_on_hold', args, idempotencyKey, { held: true }),
    });
    const agent = defineAgent({
      name: 'live-contractor-payouts',
      prompt:
        "Pay each contractor for this month's approved timesheet (hours times rate). A payout a person does not approve is not sent: put it on hold " +
        'instead, giving the reason the person gave. Return {:paid [contractor ids] :on_hold [contractor ids]}.',
      input: z.object({}),
      output: z.object({ paid: z.array(z.string()), on_hold: z.array(z.string()) }),
      tools: [timesheets, payout, hold],
      approvals: { tools: ['send_payout'] },
    });
    return {
      agent: asAgent(agent),
      input: {},
      effects,
      approve: (e: { tool: string; args: Json }) => ((e.args as { contractor?: string }).contractor === 'ct-2' ? DENIAL : true),
    };
  },
  check: (o) =>
    all(
      () => expectEqual('payouts', sorted(argsOf<{ contractor: string; amount: number }>(o, 'send_payout').map((a) => `${a.contractor}:${a.amount}`)), ['ct-1:1760', 'ct-3:1000']),
      () => {
        const holds = argsOf<{ contractor: string; reason: string }>(o, 'put_on_hold');
        if (holds.length !== 1 || holds[0]!.contractor !== 'ct-2') return fail(`holds: ${JSON.stringify(holds)}`);
        if (!holds[0]!.reason.includes(DENIAL)) return fail(`the hold does not give the person's reason: ${JSON.stringify(holds[0]!.reason)}`);
        return PRODUCT_WORDING.test(holds[0]!.reason) ? fail(`the hold's reason carries internal wording: ${JSON.stringify(holds[0]!.reason)}`) : pass;
      },
      () => {
        const r = o.result as { paid?: string[]; on_hold?: string[] } | null;
        return expectEqual('result', { paid: sorted(r?.paid ?? []), on_hold: r?.on_hold ?? [] }, { paid: ['ct-1', 'ct-3'], on_hold: ['ct-2'] });
      },
    ),
};

// ---------------------------------------------------------------- a decision, then an effect

const ORDER_HISTORY = [
  { order: 'h-1', date: '2023-11-02', total: 1200 },
  { order: 'h-2', date: '2024-01-15', total: 860 },
  { order: 'h-3', date: '2024-03-09', total: 2340 },
];

export const discountDecision: EvalCase = {
  name: 'live-discount-decision',
  what: 'a decision: a sales manager picks the discount for a quote (given the customer\'s history); the quote is issued once at that discount',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const history = defineTool({
      name: 'customer_orders',
      description: 'Past orders of a customer.',
      input: z.object({ customer: z.string() }),
      output: z.array(z.object({ order: z.string(), date: z.string(), total: z.number() })),
      sideEffect: 'read_only',
      handler: () => ORDER_HISTORY,
    });
    const quote = defineTool({
      name: 'issue_quote',
      description: 'Sends the customer a price quote.',
      input: z.object({ customer: z.string(), list_price: z.number(), discount_percent: z.number(), price: z.number() }),
      output: z.object({ quote: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('issue_quote', args, idempotencyKey, { quote: `q-${args.customer}` }),
    });
    const discount = defineDecision({
      name: 'discount',
      description: "A sales manager picks the discount in percent, after seeing the customer's lifetime spend.",
      key: (input: { customer: string }) => decisionKey('discount', input.customer),
      values: z.union([z.literal(0), z.literal(5), z.literal(10), z.literal(15)]),
    });
    const agent = defineAgent({
      name: 'live-discount-decision',
      prompt:
        'Prepare a quote of {{list_price}} EUR for customer {{customer}}. Work out their lifetime spend from their past orders, then let a sales manager ' +
        'pick the discount, and issue the quote at the discounted price. Return {:quote id :lifetime_spend X :discount_percent P :price X}.',
      input: z.object({ customer: z.string(), list_price: z.number() }),
      output: z.object({ quote: z.string(), lifetime_spend: z.number(), discount_percent: z.number(), price: z.number() }),
      tools: [history, quote],
      decisions: [discount],
    });
    return { agent: asAgent(agent), input: { customer: 'cust-88', list_price: 4800 }, effects, decide: () => 10 };
  },
  check: (o) =>
    all(
      () => expectEqual('quotes', argsOf(o, 'issue_quote'), [{ customer: 'cust-88', list_price: 4800, discount_percent: 10, price: 4320 }]),
      () => expectEqual('result', o.result, { quote: 'q-cust-88', lifetime_spend: 4400, discount_percent: 10, price: 4320 }),
    ),
};

// ---------------------------------------------------------------- lost mid-way, resumed

const SUBSCRIBERS = ['ana@example.org', 'ben@example.org', 'cai@example.org', 'dee@example.org', 'eli@example.org', 'fay@example.org'];

export const resumedNewsletter: EvalCase = {
  name: 'live-resumed-newsletter',
  what: 'a resumed mission: lost after two of six newsletters; resumed from its journal, it sends the other four, none twice',
  make() {
    const effects: Effect[] = [];
    const sentByKey = new Map<string, Promise<Json>>();
    const list = defineTool({
      name: 'list_subscribers',
      description: 'Newsletter subscribers who opted in.',
      input: z.object({}),
      output: z.array(z.object({ email: z.string(), opted_in: z.boolean() })),
      sideEffect: 'read_only',
      handler: () => [...SUBSCRIBERS.map((email) => ({ email, opted_in: true })), { email: 'gus@example.org', opted_in: false }],
    });
    const send = defineTool({
      name: 'send_newsletter',
      description: 'Emails the issue of the newsletter to one address (the mail service takes a moment per message).',
      input: z.object({ email: z.string(), issue: z.string() }),
      output: z.object({ message_id: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => {
        // the mail service is idempotent by key, as real ones are: a call repeated with the
        // key of one sent (or being sent) sends nothing new and answers as the first did
        const known = sentByKey.get(idempotencyKey);
        if (known) return known;
        effects.push({ tool: 'send_newsletter', args: args as Json, key: idempotencyKey });
        const sent = new Promise<Json>((r) => setTimeout(() => r({ message_id: `msg-${args.email.split('@')[0]}` }), 1500));
        sentByKey.set(idempotencyKey, sent);
        return sent;
      },
    });
    const agent = defineAgent({
      name: 'live-resumed-newsletter',
      prompt: 'Send newsletter issue {{issue}} to every subscriber who opted in, one email each. Return {:sent N}.',
      input: z.object({ issue: z.string() }),
      output: z.object({ sent: z.number().int() }),
      tools: [list, send],
    });
    return { agent: asAgent(agent), input: { issue: '2024-10' }, effects, crashWhen: (e: readonly Effect[]) => e.length >= 2 };
  },
  check: (o) =>
    all(
      () => expectEqual('newsletters', sorted(argsOf<{ email: string }>(o, 'send_newsletter').map((a) => a.email)), SUBSCRIBERS),
      () => (argsOf<{ issue: string }>(o, 'send_newsletter').every((a) => a.issue === '2024-10') ? pass : fail('an email of another issue')),
      () => expectEqual('result', o.result, { sent: 6 }),
    ),
};

// ---------------------------------------------------------------- transfers between warehouses

const NORTH = [
  { sku: 'k-100', on_hand: 4 },
  { sku: 'k-200', on_hand: 35 },
  { sku: 'k-300', on_hand: 12 },
  { sku: 'k-400', on_hand: 0 },
  { sku: 'k-500', on_hand: 19 },
];
const SOUTH = [
  { sku: 'k-100', on_hand: 90 },
  { sku: 'k-200', on_hand: 10 },
  { sku: 'k-300', on_hand: 45 },
  { sku: 'k-400', on_hand: 41 },
  { sku: 'k-500', on_hand: 100 },
];

export const stockTransfers: EvalCase = {
  name: 'live-stock-transfers',
  what: 'two reads, a decision per SKU, effects: move stock to the short warehouse without taking the other below its own floor',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const stock = defineTool({
      name: 'stock_levels',
      description: 'Units on hand per SKU in one warehouse.',
      input: z.object({ warehouse: z.enum(['north', 'south']) }),
      output: z.array(z.object({ sku: z.string(), on_hand: z.number().int() })),
      sideEffect: 'read_only',
      handler: (args) => (args.warehouse === 'north' ? NORTH : SOUTH),
    });
    const transfer = defineTool({
      name: 'transfer_stock',
      description: 'Books a truck moving units of a SKU between warehouses.',
      input: z.object({ sku: z.string(), from: z.enum(['north', 'south']), to: z.enum(['north', 'south']), units: z.number().int().positive() }),
      output: z.object({ transfer: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('transfer_stock', args, idempotencyKey, { transfer: `t-${args.sku}` }),
    });
    const agent = defineAgent({
      name: 'live-stock-transfers',
      prompt:
        'The north warehouse must hold at least 20 units of every SKU. For each SKU below that, move units from south to north: as many as north ' +
        'is short, but never leave south with fewer than 40 (move less, or nothing, then). Return {:moved {sku units}} for the transfers booked.',
      input: z.object({}),
      output: z.object({ moved: z.record(z.string(), z.number()) }),
      tools: [stock, transfer],
    });
    return { agent: asAgent(agent), input: {}, effects };
  },
  check: (o) =>
    all(
      () =>
        expectEqual('transfers', sorted(argsOf<{ sku: string; from: string; to: string; units: number }>(o, 'transfer_stock').map((a) => `${a.sku}:${a.from}>${a.to}:${a.units}`)), [
          'k-100:south>north:16',
          'k-300:south>north:5',
          'k-400:south>north:1',
          'k-500:south>north:1',
        ]),
      () => expectEqual('result', keyed((o.result as { moved?: unknown } | null)?.moved), { 'k-100': 16, 'k-300': 5, 'k-400': 1, 'k-500': 1 }),
      onceEach(o, 'transfer_stock', (a) => (a as { sku: string }).sku),
    ),
};

// ---------------------------------------------------------------- a unit only the field description gives

const WEEK_HOURS = [
  { employee: 'e-1', name: 'Ida', week: '2024-W18', hours: 4250 },
  { employee: 'e-2', name: 'Bo', week: '2024-W18', hours: 3800 },
  { employee: 'e-3', name: 'Cy', week: '2024-W18', hours: 4000 },
  { employee: 'e-4', name: 'Di', week: '2024-W18', hours: 4675 },
];

export const overtimeClaims: EvalCase = {
  name: 'live-overtime-claims',
  what: "a read whose unit only its field description gives (hundredths of an hour); file overtime above 40 hours",
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const hours = defineTool({
      name: 'weekly_hours',
      description: 'Hours worked per employee in a week, from the time clock.',
      input: z.object({ week: z.string() }),
      output: z.array(
        z.object({
          employee: z.string(),
          name: z.string(),
          week: z.string(),
          hours: z.number().int().describe('hours worked, in hundredths of an hour (4250 is 42.5 hours)'),
        }),
      ),
      sideEffect: 'read_only',
      handler: () => WEEK_HOURS,
    });
    const file = defineTool({
      name: 'file_overtime',
      description: 'Files an overtime claim with payroll.',
      input: z.object({ employee: z.string(), week: z.string(), overtime_hours: z.number() }),
      output: z.object({ claim: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('file_overtime', args, idempotencyKey, { claim: `ot-${args.employee}` }),
    });
    const agent = defineAgent({
      name: 'live-overtime-claims',
      prompt: 'For week {{week}}, file an overtime claim for every employee who worked more than 40 hours, for the hours above 40. Return {:claims {employee-id overtime-hours}}.',
      input: z.object({ week: z.string() }),
      output: z.object({ claims: z.record(z.string(), z.number()) }),
      tools: [hours, file],
    });
    return { agent: asAgent(agent), input: { week: '2024-W18' }, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('claims filed', sorted(argsOf<{ employee: string; overtime_hours: number }>(o, 'file_overtime').map((a) => `${a.employee}:${a.overtime_hours}`)), ['e-1:2.5', 'e-4:6.75']),
      () => expectEqual('result', keyed((o.result as { claims?: unknown } | null)?.claims), { 'e-1': 2.5, 'e-4': 6.75 }),
      onceEach(o, 'file_overtime', (a) => (a as { employee: string }).employee),
    ),
};

// ---------------------------------------------------------------- long records to route

const TICKETS = [
  { id: 't-801', from: 'li@corp.example', subject: 'Charged twice', body: 'Hello, my card statement shows two charges of 49.00 for the March invoice. Please refund the duplicate charge as soon as possible. Thanks, Li' },
  { id: 't-802', from: 'omar@corp.example', subject: 'Cannot sign in', body: 'Since this morning the login page says my password is wrong, although I reset it twice. Our whole team is blocked, please help quickly.' },
  { id: 't-803', from: 'nina@corp.example', subject: 'Feature idea', body: 'It would be great if the dashboard could export charts as PNG files, so that we can paste them into our monthly slides for the board.' },
  { id: 't-804', from: 'pete@corp.example', subject: 'Question about our plan', body: 'Our invoice for April lists 12 seats but we only have 9 people. Can you correct the invoice and tell us what we will pay from May on?' },
  { id: 't-805', from: 'sara@corp.example', subject: 'Two-factor codes', body: 'I changed phones and no longer receive my two-factor codes, so I cannot log in to my account. How do I move the codes to the new phone?' },
  { id: 't-806', from: 'vic@corp.example', subject: 'Slow reports', body: 'Reports with more than a year of data take minutes to load in the afternoon. Mornings are fine. Is there maintenance running at that time?' },
  { id: 't-807', from: 'wen@corp.example', subject: 'Receipt needed', body: 'Our accountant needs a receipt with our VAT number for the payment made on 3 May. The one we received has no VAT number on it at all.' },
];

export const ticketRouting: EvalCase = {
  name: 'live-ticket-routing',
  what: 'long records (more than a screen of text): route each ticket to billing, access or product by what it is about; one assignment each',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const list = defineTool({
      name: 'open_tickets',
      description: 'Unassigned support tickets, with their whole text.',
      input: z.object({}),
      output: z.array(z.object({ id: z.string(), from: z.string(), subject: z.string(), body: z.string() })),
      sideEffect: 'read_only',
      handler: () => TICKETS,
    });
    const assign = defineTool({
      name: 'assign_ticket',
      description: 'Assigns a ticket to a team queue.',
      input: z.object({ ticket: z.string(), queue: z.enum(['billing', 'access', 'product']) }),
      output: z.object({ assigned: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('assign_ticket', args, idempotencyKey, { assigned: true }),
    });
    const agent = defineAgent({
      name: 'live-ticket-routing',
      prompt:
        'Assign every open ticket to a queue: billing for charges, invoices, refunds and receipts; access for signing in, passwords and two-factor codes; ' +
        'product for everything else (ideas, bugs, speed). Read each ticket to decide. Return {:billing [ids] :access [ids] :product [ids]}.',
      input: z.object({}),
      output: z.object({ billing: z.array(z.string()), access: z.array(z.string()), product: z.array(z.string()) }),
      tools: [list, assign],
    });
    return { agent: asAgent(agent), input: {}, effects };
  },
  check: (o) => {
    const want = { billing: ['t-801', 't-804', 't-807'], access: ['t-802', 't-805'], product: ['t-803', 't-806'] };
    return all(
      () =>
        expectEqual(
          'assignments',
          sorted(argsOf<{ ticket: string; queue: string }>(o, 'assign_ticket').map((a) => `${a.ticket}:${a.queue}`)),
          sorted(Object.entries(want).flatMap(([q, ids]) => ids.map((id) => `${id}:${q}`))),
        ),
      () => {
        const r = (o.result ?? {}) as Record<string, string[]>;
        return expectEqual('result', { billing: sorted(r.billing ?? []), access: sorted(r.access ?? []), product: sorted(r.product ?? []) }, want);
      },
      onceEach(o, 'assign_ticket', (a) => (a as { ticket: string }).ticket),
    );
  },
};

// ---------------------------------------------------------------- lookups before creating

const LEADS = ['  Maria.Lopez@Example.com', 'jin@example.com', 'MARIA.LOPEZ@example.com ', 'oskar@example.com', 'Jin@Example.com', 'tess@example.com'];
const IN_CRM = new Set(['jin@example.com']);

export const leadImport: EvalCase = {
  name: 'live-lead-import',
  what: 'normalise, look each lead up in the CRM (a read per lead), create only the new ones, each once',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const find = defineTool({
      name: 'crm_find_contact',
      description: 'Looks a contact up in the CRM by email address (exact, lower-case match).',
      input: z.object({ email: z.string() }),
      output: z.object({ found: z.boolean(), contact_id: z.string().nullable() }),
      sideEffect: 'read_only',
      handler: (args) => (IN_CRM.has(args.email) ? { found: true, contact_id: 'crm-17' } : { found: false, contact_id: null }),
    });
    const create = defineTool({
      name: 'crm_create_contact',
      description: 'Creates a contact in the CRM.',
      input: z.object({ email: z.string(), source: z.string() }),
      output: z.object({ contact_id: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('crm_create_contact', args, idempotencyKey, { contact_id: `crm-${args.email.split('@')[0]}` }),
    });
    const agent = defineAgent({
      name: 'live-lead-import',
      prompt:
        'Import the leads collected at the fair: {{leads}}. Email addresses are case-insensitive and may carry stray spaces. Create a CRM contact ' +
        '(lower-case email, source "fair-2024") for each distinct lead not already in the CRM. Return {:created [emails] :existing [emails]}, lower-case.',
      input: z.object({ leads: z.array(z.string()) }),
      output: z.object({ created: z.array(z.string()), existing: z.array(z.string()) }),
      tools: [find, create],
    });
    return { agent: asAgent(agent), input: { leads: LEADS }, effects };
  },
  check: (o) =>
    all(
      () =>
        expectEqual('contacts created', sorted(argsOf<{ email: string; source: string }>(o, 'crm_create_contact').map((a) => `${a.email}|${a.source}`)), [
          'maria.lopez@example.com|fair-2024',
          'oskar@example.com|fair-2024',
          'tess@example.com|fair-2024',
        ]),
      () => {
        const r = o.result as { created?: string[]; existing?: string[] } | null;
        return expectEqual('result', { created: sorted(r?.created ?? []), existing: sorted(r?.existing ?? []) }, { created: ['maria.lopez@example.com', 'oskar@example.com', 'tess@example.com'], existing: ['jin@example.com'] });
      },
    ),
};

// ---------------------------------------------------------------- totals by month, one report

const PAYMENTS = [
  { id: 'p1', received: '2024-01-04T09:12:00Z', amount: 120.5 },
  { id: 'p2', received: '2024-01-19T16:40:00Z', amount: 80 },
  { id: 'p3', received: '2024-01-31T23:59:00Z', amount: 42.25 },
  { id: 'p4', received: '2024-02-01T00:05:00Z', amount: 300 },
  { id: 'p5', received: '2024-02-14T11:00:00Z', amount: 19.99 },
  { id: 'p6', received: '2024-02-29T08:30:00Z', amount: 250 },
  { id: 'p7', received: '2024-03-03T10:00:00Z', amount: 75.5 },
  { id: 'p8', received: '2024-03-17T13:45:00Z', amount: 60 },
  { id: 'p9', received: '2024-03-31T22:10:00Z', amount: 110 },
  { id: 'p10', received: '2024-04-01T07:00:00Z', amount: 999 },
];

export const monthlyTotals: EvalCase = {
  name: 'live-monthly-totals',
  what: 'dates: totals per calendar month of the first quarter (a leap day, month ends, a payment outside), posted as one report',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const list = defineTool({
      name: 'list_payments',
      description: 'Incoming payments, newest last.',
      input: z.object({}),
      output: z.array(z.object({ id: z.string(), received: z.string().describe('ISO timestamp, UTC'), amount: z.number() })),
      sideEffect: 'read_only',
      handler: () => PAYMENTS,
    });
    const post = defineTool({
      name: 'post_report',
      description: 'Posts a report to the finance channel.',
      input: z.object({ title: z.string(), totals: z.record(z.string(), z.number()) }),
      output: z.object({ posted: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('post_report', args, idempotencyKey, { posted: true }),
    });
    const agent = defineAgent({
      name: 'live-monthly-totals',
      prompt:
        'Post the payments received in the first quarter of 2024 (UTC) to finance as one report titled "Q1 2024", with the total of each month keyed "YYYY-MM". ' +
        'Round totals to cents. Return the same totals map.',
      input: z.object({}),
      output: z.record(z.string(), z.number()),
      tools: [list, post],
    });
    return { agent: asAgent(agent), input: {}, effects };
  },
  check: (o) => {
    const want = { '2024-01': 242.75, '2024-02': 569.99, '2024-03': 245.5 };
    const round = (m: Record<string, number> | null | undefined) => Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, Math.round(v * 100) / 100]).sort());
    const posts = argsOf<{ title: string; totals: Record<string, number> }>(o, 'post_report');
    return all(
      () => (posts.length === 1 ? pass : fail(`${posts.length} reports posted`)),
      () => expectEqual('report', { title: posts[0]?.title, totals: round(posts[0]?.totals) }, { title: 'Q1 2024', totals: want }),
      () => expectEqual('result', round(o.result as Record<string, number>), want),
    );
  },
};

export const liveMissionCases: readonly EvalCase[] = [
  refundWindow,
  couponRefusals,
  renewalReminders,
  vendorPayments,
  contractorPayouts,
  discountDecision,
  resumedNewsletter,
  stockTransfers,
  overtimeClaims,
  ticketRouting,
  leadImport,
  monthlyTotals,
];
