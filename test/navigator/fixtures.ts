/** A small wire-transfer agent used by the prompt tests. */
import { z } from 'zod';
import { decisionKey, defineAgent, defineDecision, defineTool } from '../../src/navigator/index.ts';

export const prepareWire = defineTool({
  name: 'prepare_wire',
  description: 'Puts a hold on the funds and returns the hold.',
  input: z.object({
    recipient: z.string().describe('account name of the recipient'),
    amount: z.number().positive().describe('amount in USD'),
    memo: z.string().optional(),
  }),
  output: z.object({ hold_id: z.string(), amount: z.number() }),
  sideEffect: 'external',
  example: { recipient: 'bob', amount: 5000 },
  handler: ({ recipient, amount }) => ({ hold_id: `hold_${recipient}`, amount }),
});

export const lookupAccount = defineTool({
  name: 'lookup_account',
  description: 'Finds an account by name.',
  input: z.object({ name: z.string() }),
  sideEffect: 'read_only',
  handler: ({ name }) => ({ name, iban: 'DE00 1234' }),
});

export const executeWire = defineTool({
  name: 'execute_wire',
  description: 'Sends a prepared wire.',
  input: z.object({ hold_id: z.string() }),
  sideEffect: 'external',
  handler: ({ hold_id }) => ({ reference: `wire_${hold_id}` }),
});

export const managerDecision = defineDecision({
  name: 'manager_decision',
  description: 'A manager approves or rejects the wire.',
  key: (input: { recipient: string; amount: number }) => decisionKey('manager_decision', input.recipient, input.amount),
  values: z.enum(['approved', 'rejected']),
});

export const wireAgent = defineAgent({
  name: 'wire-transfer',
  prompt: 'Send {{amount}} USD to {{recipient}} once a manager approves.',
  input: z.object({ recipient: z.string(), amount: z.number().positive() }),
  output: z.object({ status: z.enum(['sent', 'cancelled']), reference: z.string().optional() }),
  tools: [lookupAccount, prepareWire, executeWire],
  decisions: [managerDecision],
  checklist: ['Prepare the wire', 'Wait for the manager', { id: 'send', description: 'Send or cancel' }],
  limits: { maxTurns: 4 },
});
