/** Missions that wait for people, span passes, and repair their journal. */
import { z } from 'zod';
import { decisionKey, defineAgent, defineDecision, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { type EvalCase, type Effect, all, effectsOf, expectEqual, fail, pass, recorder } from '../case.ts';

function refundAgent(effects: Effect[], name: string) {
  const rec = recorder(effects);
  const refund = defineTool({
    name: 'refund',
    description: 'Refunds an order to the customer. External and irreversible.',
    input: z.object({ order_id: z.string(), amount: z.number() }),
    output: z.object({ refund_id: z.string() }),
    sideEffect: 'external',
    handler: (args, { idempotencyKey }) => rec('refund', args, idempotencyKey, { refund_id: `r_${args.order_id}` }),
  });
  const approval = defineDecision({
    name: 'refund_approval',
    description: 'A supervisor approves or rejects the refund.',
    key: (input: { order_id: string }) => decisionKey('refund_approval', input.order_id),
    values: z.enum(['approved', 'rejected']),
  });
  return defineAgent({
    name,
    prompt: 'Refund {{amount}} for order {{order_id}}, but only once a supervisor approved it. Return {:status "refunded" :refund_id ...} or {:status "rejected"}.',
    input: z.object({ order_id: z.string(), amount: z.number() }),
    output: z.object({ status: z.enum(['refunded', 'rejected']), refund_id: z.string().optional() }),
    tools: [refund],
    decisions: [approval],
  }) as unknown as Agent;
}

export const refundApproved: EvalCase = {
  name: 'refund-approved',
  what: 'waits for a decision; approved: the refund runs once',
  make() {
    const effects: Effect[] = [];
    return { agent: refundAgent(effects, 'refund-approved'), input: { order_id: 'o77', amount: 49.9 }, effects, decide: () => 'approved' };
  },
  check: (o) =>
    all(
      () => expectEqual('refunds', effectsOf(o, 'refund').map((e) => e.args), [{ order_id: 'o77', amount: 49.9 }]),
      () => expectEqual('result', o.result, { status: 'refunded', refund_id: 'r_o77' }),
    ),
};

export const refundRejected: EvalCase = {
  name: 'refund-rejected',
  what: 'waits for a decision; rejected: nothing is refunded',
  make() {
    const effects: Effect[] = [];
    return { agent: refundAgent(effects, 'refund-rejected'), input: { order_id: 'o78', amount: 12 }, effects, decide: () => 'rejected' };
  },
  check: (o) => all(() => expectEqual('refunds', effectsOf(o, 'refund').length, 0), () => expectEqual('result', o.result, { status: 'rejected' })),
};

export const restockAfterCount: EvalCase = {
  name: 'restock-after-count',
  what: 'two passes: a number from a person arrives, then the shortfall is ordered',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const order = defineTool({
      name: 'order_stock',
      description: 'Orders units of a SKU from the supplier. External.',
      input: z.object({ sku: z.string(), quantity: z.number().int().positive() }),
      output: z.object({ po: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('order_stock', args, idempotencyKey, { po: `po_${args.sku}_${args.quantity}` }),
    });
    const count = defineDecision({
      name: 'stock_count',
      description: 'A warehouse worker counts the units on the shelf.',
      key: (input: { sku: string }) => decisionKey('stock_count', input.sku),
      values: z.number().int().nonnegative(),
    });
    const agent = defineAgent({
      name: 'restock-after-count',
      prompt: 'Get the shelf count of {{sku}} from the warehouse, then order enough units to reach {{target}} (nothing if already there). Return {:ordered N}.',
      input: z.object({ sku: z.string(), target: z.number().int() }),
      output: z.object({ ordered: z.number() }),
      tools: [order],
      decisions: [count],
    });
    return { agent: agent as unknown as Agent, input: { sku: 'sku-9', target: 40 }, effects, decide: () => 13 };
  },
  check: (o) =>
    all(
      () => expectEqual('orders', effectsOf(o, 'order_stock').map((e) => e.args), [{ sku: 'sku-9', quantity: 27 }]),
      () => expectEqual('result', o.result, { ordered: 27 }),
    ),
};

export const resetStaleRate: EvalCase = {
  name: 'reset-stale-rate',
  what: 'a recorded task holds a failed value: task-reset it, fetch again, pay the right amount',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const fetchRate = defineTool({
      name: 'fetch_rate',
      description: 'The exchange rate from a currency to EUR, from the bank (a local call, recorded in a task).',
      input: z.object({ currency: z.string() }),
      output: z.object({ currency: z.string(), rate: z.number().nullable(), error: z.string().optional() }),
      sideEffect: 'local',
      handler: (args, { idempotencyKey }) => rec('fetch_rate', args, idempotencyKey, { currency: args.currency, rate: 0.5 }),
    });
    const pay = defineTool({
      name: 'pay_invoice',
      description: 'Pays an invoice in EUR. External.',
      input: z.object({ invoice: z.string(), eur: z.number() }),
      output: z.object({ payment: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('pay_invoice', args, idempotencyKey, { payment: `p_${args.invoice}` }),
    });
    const agent = defineAgent({
      name: 'reset-stale-rate',
      prompt:
        'Pay invoice {{invoice}} of {{amount}} {{currency}} in EUR. Use the rate recorded in task fetch_rate_{{currency}}; ' +
        'if that recorded rate is nil (the bank timed out), forget the task and fetch the rate again. Return {:paid_eur X}.',
      input: z.object({ invoice: z.string(), amount: z.number(), currency: z.string() }),
      output: z.object({ paid_eur: z.number() }),
      tools: [fetchRate, pay],
      limits: { maxTurns: 3 },
    });
    return {
      agent: agent as unknown as Agent,
      input: { invoice: 'inv-5', amount: 300, currency: 'CHF' },
      effects,
      journal: [['fetch_rate_CHF', { currency: 'CHF', rate: null, error: 'timeout' }]],
    };
  },
  check: (o) =>
    all(
      () => (effectsOf(o, 'fetch_rate').length === 1 ? pass : fail(`fetch_rate ran ${effectsOf(o, 'fetch_rate').length} times (the stale value must be reset and fetched once)`)),
      () => expectEqual('payments', effectsOf(o, 'pay_invoice').map((e) => e.args), [{ invoice: 'inv-5', eur: 150 }]),
      () => expectEqual('result', o.result, { paid_eur: 150 }),
    ),
};

export const decisionCases = [refundApproved, refundRejected, restockAfterCount, resetStaleRate];
