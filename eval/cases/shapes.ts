/**
 * Missions of the kind issue 29 measured with a real model: every read tool declares no
 * `output`, so a model that has not seen a result spends a turn printing one. With
 * shapes remembered across missions (src/navigator/shape-memory.ts) a later mission of the
 * same agent shows them on its first turn. One mission counts days overdue (dates), one
 * waits for an IT approval, one meets a shop that refuses the change.
 */
import { z } from 'zod';
import { ToolRejected, decisionKey, defineAgent, defineDecision, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import { type EvalCase, type Effect, all, effectsOf, expectEqual, recorder } from '../case.ts';

const INVOICES = [
  { id: 'inv-1', customer: 'acme', due: '2024-02-10', amount: 120, paid: false },
  { id: 'inv-2', customer: 'globex', due: '2024-02-20', amount: 80, paid: false },
  { id: 'inv-3', customer: 'initech', due: '2024-01-15', amount: 300, paid: true },
  { id: 'inv-4', customer: 'acme', due: '2023-12-31', amount: 45.5, paid: false },
  { id: 'inv-5', customer: 'umbrella', due: '2024-03-05', amount: 99, paid: false },
];

export const invoiceReminders: EvalCase = {
  name: 'invoice-reminders',
  what: 'a read without output schema; days overdue from a date given as data; one reminder each',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const listInvoices = defineTool({
      name: 'list_invoices',
      description: 'All open and paid invoices of the accounting system.',
      input: z.object({}),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('list_invoices', args, idempotencyKey, INVOICES),
    });
    const remind = defineTool({
      name: 'send_reminder',
      description: 'Emails the customer a payment reminder for an invoice. External.',
      input: z.object({ invoice: z.string(), days_overdue: z.number().int() }),
      output: z.object({ sent: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => rec('send_reminder', args, idempotencyKey, { sent: true }),
    });
    const agent = defineAgent({
      name: 'invoice-reminders',
      prompt:
        'Today is {{today}}. Send a payment reminder for every unpaid invoice that is more than 14 days past its due date, ' +
        'stating how many days overdue it is. Return {:reminded [invoice ids in the order listed]}.',
      input: z.object({ today: z.string() }),
      output: z.object({ reminded: z.array(z.string()) }),
      tools: [listInvoices, remind],
    });
    return { agent: agent as unknown as Agent, input: { today: '2024-03-01' }, effects };
  },
  check: (o) =>
    all(
      () =>
        expectEqual('reminders', effectsOf(o, 'send_reminder').map((e) => e.args), [
          { invoice: 'inv-1', days_overdue: 20 },
          { invoice: 'inv-4', days_overdue: 61 },
        ]),
      () => expectEqual('result', o.result, { reminded: ['inv-1', 'inv-4'] }),
    ),
};

/** Onboarding of a new hire who needs admin rights or not; IT decides `decision` when asked. */
function onboarding(name: string, what: string, needsAdmin: boolean, decision: 'approved' | 'declined'): EvalCase {
  const admin = needsAdmin && decision === 'approved';
  return {
    name,
    what,
    // one agent, as on a real worker: a later onboarding shows the HR record's shape at once
    make: () => makeOnboarding('onboarding', needsAdmin, decision),
    check: (o) =>
      all(
        () => expectEqual('accounts', effectsOf(o, 'create_account').map((e) => e.args), [{ employee: 'e42', admin }]),
        () => expectEqual('result', o.result, { account: 'acct_e42', admin }),
      ),
  };
}

function makeOnboarding(name: string, needsAdmin: boolean, decision: 'approved' | 'declined') {
  const effects: Effect[] = [];
  const rec = recorder(effects);
  const getHire = defineTool({
    name: 'get_new_hire',
    description: 'The HR record of a new hire.',
    input: z.object({ employee: z.string() }),
    sideEffect: 'read_only',
    handler: (args, { idempotencyKey }) =>
      rec('get_new_hire', args, idempotencyKey, { employee: args.employee, name: 'Dana Lee', team: 'platform', needs_admin: needsAdmin, start: '2024-04-02' }),
  });
  const createAccount = defineTool({
    name: 'create_account',
    description: 'Creates the login of an employee, with or without admin rights. External.',
    input: z.object({ employee: z.string(), admin: z.boolean() }),
    output: z.object({ account: z.string() }),
    sideEffect: 'external',
    handler: (args, { idempotencyKey }) => rec('create_account', args, idempotencyKey, { account: `acct_${args.employee}` }),
  });
  const approval = defineDecision({
    name: 'it_approval',
    description: 'IT approves or declines admin rights for a new hire.',
    key: (input: { employee: string }) => decisionKey('it_approval', input.employee),
    values: z.enum(['approved', 'declined']),
  });
  const agent = defineAgent({
    name,
    prompt:
      'Onboard new hire {{employee}}. Read their HR record. If they need admin rights, IT must approve first: approved gives an ' +
      'account with admin rights, declined an account without. If they need none, create the account without asking. ' +
      'Return {:account id :admin true/false}.',
    input: z.object({ employee: z.string() }),
    output: z.object({ account: z.string(), admin: z.boolean() }),
    tools: [getHire, createAccount],
    decisions: [approval],
  });
  return { agent: agent as unknown as Agent, input: { employee: 'e42' }, effects, decide: () => decision };
}

export const onboardingApproval = onboarding('onboarding-approval', 'a read without output schema, then an IT approval (a decision, two passes): approved, one admin account', true, 'approved');
export const onboardingDeclined = onboarding('onboarding-declined', 'the same, IT declines: one account without admin rights', true, 'declined');
export const onboardingNoAdmin = onboarding('onboarding-no-admin', 'the same, no admin rights needed: no decision asked, one account', false, 'approved');

const BANK = [
  { date: '2024-03-01', amount: 120, reference: 'INV-1' },
  { date: '2024-03-02', amount: 45.5, reference: 'INV-4' },
  { date: '2024-03-04', amount: 300, reference: 'Payment inv 3' },
  { date: '2024-03-05', amount: 19.99, reference: 'card fee' },
];
const LEDGER = [
  { entry: 'L1', invoice: 'INV-1', amount: 120, booked: '2024-02-28' },
  { entry: 'L2', invoice: 'INV-3', amount: 300, booked: '2024-03-01' },
  { entry: 'L3', invoice: 'INV-4', amount: 45.5, booked: '2024-03-02' },
  { entry: 'L4', invoice: 'INV-9', amount: 80, booked: '2024-03-03' },
];

export const ledgerReconciliation: EvalCase = {
  name: 'ledger-reconciliation',
  what: 'two reads without output schema; match bank lines to ledger entries by amount and reference; report what is left',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const bank = defineTool({
      name: 'bank_statement',
      description: 'The lines of the bank statement for March 2024.',
      input: z.object({}),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('bank_statement', args, idempotencyKey, BANK),
    });
    const ledger = defineTool({
      name: 'ledger_entries',
      description: 'The open receivables booked in the ledger.',
      input: z.object({}),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('ledger_entries', args, idempotencyKey, LEDGER),
    });
    const agent = defineAgent({
      name: 'ledger-reconciliation',
      prompt:
        'Reconcile the bank statement with the ledger: a bank line matches a ledger entry of the same amount whose invoice number ' +
        'appears in the line\'s reference (the bank may write it with a space or in other case). ' +
        'Return {:matched [ledger entries matched] :unmatched_bank [references of bank lines without entry] :unmatched_ledger [entries without bank line]}.',
      input: z.object({}),
      output: z.object({ matched: z.array(z.string()), unmatched_bank: z.array(z.string()), unmatched_ledger: z.array(z.string()) }),
      tools: [bank, ledger],
    });
    return { agent: agent as unknown as Agent, input: {}, effects };
  },
  check: (o) => expectEqual('result', o.result, { matched: ['L1', 'L2', 'L3'], unmatched_bank: ['card fee'], unmatched_ledger: ['L4'] }),
};

export const priceChangeRefused: EvalCase = {
  name: 'price-change-refused',
  what: 'a read without output schema; the shop refuses the change (ToolRejected) and the mission reports it, no retry',
  make() {
    const effects: Effect[] = [];
    const rec = recorder(effects);
    const getProduct = defineTool({
      name: 'get_product',
      description: 'A product of the shop with its current price.',
      input: z.object({ sku: z.string() }),
      sideEffect: 'read_only',
      handler: (args, { idempotencyKey }) => rec('get_product', args, idempotencyKey, { sku: args.sku, title: 'Desk lamp', price: 40, currency: 'EUR' }),
    });
    const setPrice = defineTool({
      name: 'set_price',
      description: 'Sets the price of a product in the shop. External; the shop may refuse a change.',
      input: z.object({ sku: z.string(), price: z.number() }),
      output: z.object({ ok: z.boolean() }),
      sideEffect: 'external',
      handler: (args, { idempotencyKey }) => {
        rec('set_price', args, idempotencyKey, null);
        throw new ToolRejected('price changes of more than 20% need a category manager');
      },
    });
    const agent = defineAgent({
      name: 'price-change-refused',
      prompt:
        'Lower the price of {{sku}} by {{percent}} percent, rounded to cents. The shop may refuse the change: then do not try again, ' +
        'return {:status "refused" :reason <the shop\'s message>}. Otherwise return {:status "changed" :price <new price>}.',
      input: z.object({ sku: z.string(), percent: z.number() }),
      output: z.object({ status: z.enum(['changed', 'refused']), price: z.number().optional(), reason: z.string().optional() }),
      tools: [getProduct, setPrice],
      limits: { maxTurns: 4 },
    });
    return { agent: agent as unknown as Agent, input: { sku: 'lamp-7', percent: 30 }, effects };
  },
  check: (o) =>
    all(
      () => expectEqual('price changes tried', effectsOf(o, 'set_price').map((e) => e.args), [{ sku: 'lamp-7', price: 28 }]),
      () => expectEqual('status', (o.result as { status?: string } | null)?.status, 'refused'),
      () => expectEqual('reason', /20%/.test(String((o.result as { reason?: string } | null)?.reason)), true),
    ),
};

export const shapeCases = [invoiceReminders, onboardingApproval, onboardingDeclined, onboardingNoAdmin, priceChangeRefused, ledgerReconciliation];
