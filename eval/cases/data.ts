/** Data processing over tool results: filtering, grouping, normalising, converting. */
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { type EvalCase, type Effect, all, effectsOf, expectEqual, fail, pass, recorder } from '../case.ts';

const ORDERS = [
  { id: 'o1', status: 'paid', amount: 250, customer: 'acme' },
  { id: 'o2', status: 'pending', amount: 900, customer: 'acme' },
  { id: 'o3', status: 'paid', amount: 80, customer: 'globex' },
  { id: 'o4', status: 'paid', amount: 120.5, customer: 'initech' },
  { id: 'o5', status: 'refunded', amount: 300, customer: 'globex' },
  { id: 'o6', status: 'paid', amount: 101, customer: 'acme' },
];

export const paidOrdersTotal: EvalCase = {
  name: 'paid-orders-total',
  what: 'filter a read tool result, sum it, return ids; the read runs once',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const listOrders = defineTool({
      name: 'list_orders',
      description: 'All orders of the shop.',
      input: z.object({}),
      output: z.array(z.object({ id: z.string(), status: z.string(), amount: z.number(), customer: z.string() })),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('list_orders', args, idempotencyKey, ORDERS),
    });
    const agent = defineAgent({
      name: 'paid-orders-total',
      prompt: 'Find the paid orders with an amount over 100. Return their total amount and their ids in the order listed.',
      input: z.object({}),
      output: z.object({ total: z.number(), ids: z.array(z.string()) }),
      tools: [listOrders],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('result', o.result, { total: 471.5, ids: ['o1', 'o4', 'o6'] }),
      () => (effectsOf(o, 'list_orders').length === 1 ? pass : fail(`list_orders ran ${effectsOf(o, 'list_orders').length} times`)),
    ),
};

const CUSTOMERS = [
  { name: 'Ann', region: 'EU' },
  { name: 'Bo', region: 'us' },
  { name: 'Cy', region: 'eu ' },
  { name: 'Di', region: 'APAC' },
  { name: 'Ed', region: 'Us' },
  { name: 'Flo', region: 'eu' },
];

export const regionCounts: EvalCase = {
  name: 'region-counts',
  what: 'group a result without an output schema; normalise messy keys',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const listCustomers = defineTool({
      name: 'list_customers',
      description: 'All customers with their sales region (as typed by sales people).',
      input: z.object({}),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('list_customers', args, idempotencyKey, CUSTOMERS),
    });
    const agent = defineAgent({
      name: 'region-counts',
      prompt: 'Count customers per region. Regions are case-insensitive and may have stray spaces: use lower-case trimmed names as keys.',
      input: z.object({}),
      output: z.record(z.string(), z.number()),
      tools: [listCustomers],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) => expectEqual('result', o.result && sortKeys(o.result as Record<string, number>), { apac: 1, eu: 3, us: 2 }),
};

const sortKeys = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));

const CONTACTS = ['Ann@Example.com', ' bo@example.com', 'ann@example.com', 'CY@example.com ', 'bo@EXAMPLE.com', 'di@example.com'];

export const dedupeContacts: EvalCase = {
  name: 'dedupe-contacts',
  what: 'normalise strings, create one record per unique value (external, each once)',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const fetchContacts = defineTool({
      name: 'fetch_contacts',
      description: 'Email addresses from the signup sheet, as typed.',
      input: z.object({}),
      output: z.array(z.string()),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('fetch_contacts', args, idempotencyKey, CONTACTS),
    });
    const createContact = defineTool({
      name: 'create_contact',
      description: 'Creates a contact in the CRM. External.',
      input: z.object({ email: z.string() }),
      output: z.object({ id: z.string() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('create_contact', args, idempotencyKey, { id: `c_${args.email}` }),
    });
    const agent = defineAgent({
      name: 'dedupe-contacts',
      prompt: 'Create one CRM contact per distinct email address of the signup sheet (trim and lower-case them first). Return how many you created.',
      input: z.object({}),
      output: z.object({ created: z.number() }),
      tools: [fetchContacts, createContact],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('result', o.result, { created: 4 }),
      () => expectEqual('contacts created', effectsOf(o, 'create_contact').map((e) => (e.args as { email: string }).email).sort(), ['ann@example.com', 'bo@example.com', 'cy@example.com', 'di@example.com']),
    ),
};

const RATES: Record<string, number> = { USD: 0.92, GBP: 1.17, EUR: 1 };
const INVOICES = [
  { id: 'i1', currency: 'USD', amount: 100 },
  { id: 'i2', currency: 'GBP', amount: 50 },
  { id: 'i3', currency: 'EUR', amount: 10.25 },
  { id: 'i4', currency: 'USD', amount: 33.33 },
];

export const currencyTotal: EvalCase = {
  name: 'currency-total',
  what: 'two reads, one per currency, arithmetic and rounding',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const listInvoices = defineTool({
      name: 'list_invoices',
      description: 'Open invoices with their currency and amount.',
      input: z.object({}),
      output: z.array(z.object({ id: z.string(), currency: z.string(), amount: z.number() })),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('list_invoices', args, idempotencyKey, INVOICES),
    });
    const getRate = defineTool({
      name: 'get_rate',
      description: 'How many EUR one unit of the currency is worth.',
      input: z.object({ currency: z.string() }),
      output: z.object({ currency: z.string(), eur: z.number() }),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('get_rate', args, idempotencyKey, { currency: args.currency, eur: RATES[args.currency] ?? 0 }),
    });
    const agent = defineAgent({
      name: 'currency-total',
      prompt: 'Total the open invoices in EUR, rounded to cents. Look each currency rate up once.',
      input: z.object({}),
      output: z.object({ total_eur: z.number() }),
      tools: [listInvoices, getRate],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) => {
    const want = Math.round((100 * 0.92 + 50 * 1.17 + 10.25 + 33.33 * 0.92) * 100) / 100;
    const got = (o.result as { total_eur?: number } | null)?.total_eur;
    return all(
      () => (typeof got === 'number' && Math.abs(got - want) < 0.006 ? pass : fail(`total_eur: expected ${want}, got ${JSON.stringify(got)}`)),
      () => {
        const looked = effectsOf(o, 'get_rate').map((e) => (e.args as { currency: string }).currency);
        return new Set(looked).size === looked.length ? pass : fail(`a rate was looked up twice: ${looked.join(', ')}`);
      },
    );
  },
};

export const dataCases = [paidOrdersTotal, regionCounts, dedupeContacts, currencyTotal];
