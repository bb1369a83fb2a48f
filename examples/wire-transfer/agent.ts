/**
 * The wire-transfer agent: put a hold on the funds, ask a manager, wait for the
 * decision (durably: a pass returns `{:status :waiting}` and the mission parks), then
 * send the wire or release the hold.
 *
 * Side-effect classes: the hold and the approval request are recorded by our own
 * bank service and run inside the pass (`local`); sending the wire and releasing the
 * hold are `external`: under Temporal each is its own activity, at most once per task.
 * Every call carries its idempotency key to the bank, which applies each key once.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { decisionKey, defineAgent, defineDecision, defineTool } from '../../src/navigator/index.ts';
import { bank } from './bank.ts';

export const answersFile = fileURLToPath(new URL('./answers.json', import.meta.url));

export const WireInput = z.object({
  recipient: z.string().min(1).describe('account name of the recipient'),
  amount: z.number().positive().describe('amount in USD'),
});
export type WireInput = z.infer<typeof WireInput>;

export const prepareWire = defineTool({
  name: 'prepare_wire',
  description: 'Puts a hold on the funds for a wire and returns the hold.',
  input: z.object({
    recipient: z.string().describe('account name of the recipient'),
    amount: z.number().positive().describe('amount in USD'),
  }),
  output: z.object({ hold_id: z.string(), recipient: z.string(), amount: z.number(), status: z.string() }),
  sideEffect: 'local',
  example: { recipient: 'bob', amount: 5000 },
  handler: (args, { idempotencyKey }) => bank.prepareWire(args, idempotencyKey),
});

export const requestApproval = defineTool({
  name: 'request_approval',
  description:
    'Asks a manager to approve the wire of a hold. The decision arrives later in the journal under decision_key.',
  input: z.object({ hold_id: z.string(), decision_key: z.string().describe('the journal key of the decision') }),
  output: z.object({ request_id: z.string(), hold_id: z.string(), decision_key: z.string(), notified: z.string() }),
  sideEffect: 'local',
  example: { hold_id: 'hold_123', decision_key: 'manager_decision_bob_5000' },
  handler: (args, { idempotencyKey }) => bank.requestApproval(args, idempotencyKey),
});

export const executeWire = defineTool({
  name: 'execute_wire',
  description: 'Sends the wire of an approved hold. Irreversible.',
  input: z.object({ hold_id: z.string() }),
  output: z.object({ reference: z.string(), hold_id: z.string(), status: z.string() }),
  sideEffect: 'external',
  example: { hold_id: 'hold_123' },
  handler: (args, { idempotencyKey }) => bank.executeWire(args, idempotencyKey),
});

export const cancelHold = defineTool({
  name: 'cancel_hold',
  description: 'Releases the hold of a wire that will not be sent.',
  input: z.object({ hold_id: z.string() }),
  output: z.object({ hold_id: z.string(), status: z.string() }),
  sideEffect: 'external',
  example: { hold_id: 'hold_123' },
  handler: (args, { idempotencyKey }) => bank.cancelHold(args, idempotencyKey),
});

/** `manager_decision_RECIPIENT_AMOUNT`, e.g. `manager_decision_bob_5000`. */
export const managerDecision = defineDecision({
  name: 'manager_decision',
  description: 'A manager approves or rejects the wire.',
  key: (input: WireInput) => decisionKey('manager_decision', input.recipient, input.amount),
  values: z.enum(['approved', 'rejected']),
  // nobody decided within a day: the wire is rejected and the hold released
  expiry: { afterMs: 24 * 60 * 60 * 1000, value: 'rejected' },
  // what the approver reads on the card (without these the console derives it from the tools)
  onApprove: 'The wire is sent to the recipient and the money leaves the account. A sent wire cannot be undone.',
  onReject: 'The hold on the funds is released; nothing is sent.',
});

export const wireTransfer = defineAgent({
  name: 'wire-transfer',
  description: 'Sends a wire once a manager approves it; releases the hold when rejected.',
  prompt:
    'Send {{amount}} USD to {{recipient}}. First put a hold on the funds and ask a manager to approve the wire. ' +
    'Then wait for the manager decision. If it is approved, execute the wire; if it is rejected, cancel the hold. ' +
    'Return the outcome.',
  input: WireInput,
  output: z.object({
    status: z.enum(['sent', 'cancelled']),
    hold_id: z.string(),
    reference: z.string().optional(),
  }),
  tools: [prepareWire, requestApproval, executeWire, cancelHold],
  decisions: [managerDecision],
  checklist: [
    { id: 'prepare', description: 'Put a hold on the funds and ask a manager' },
    { id: 'decision', description: 'Get the manager decision' },
    { id: 'finish', description: 'Send the wire or release the hold' },
  ],
  limits: { maxTurns: 4, retryTurns: 1 },
  model: `scripted:${answersFile}`,
});

export const defaultInput: WireInput = { recipient: 'bob', amount: 5000 };
