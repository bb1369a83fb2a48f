/**
 * A fake bank that behaves like a real one where it matters: every call carries an
 * idempotency key, each key is applied at most once (a repeated key returns the first
 * result and changes nothing), and every call is recorded, one JSON line each, in the
 * file named by WIRE_TRANSFER_BANK_FILE (default `.navigator/wire-transfer-bank.jsonl`):
 *
 * ```json
 * {"operation":"execute_wire","args":{"hold_id":"hold_1a2b"},"idempotencyKey":"9f…","outcome":"applied","result":{...}}
 * ```
 *
 * The file is the bank's whole state, so it survives process restarts (and a worker
 * killed mid-run): the next call reads it again.
 */
import { createHash } from 'node:crypto';
import { type Json, ServiceError, type ServiceRecord, applyOnce, readRecords } from '../shared/service-log.ts';

export type Operation = 'prepare_wire' | 'request_approval' | 'execute_wire' | 'cancel_hold';

export type BankRecord = ServiceRecord<Operation>;

export const DEFAULT_BANK_FILE = '.navigator/wire-transfer-bank.jsonl';

/** The bank's file: WIRE_TRANSFER_BANK_FILE, read at every call. */
export const bankFile = (): string => process.env.WIRE_TRANSFER_BANK_FILE || DEFAULT_BANK_FILE;

/** Every call recorded so far, in order. */
export const readBank = (file = bankFile()): BankRecord[] => readRecords<Operation>(file);

/** Operations that really happened (applied), e.g. to assert "one wire was sent". */
export const appliedOperations = (file = bankFile()): BankRecord[] =>
  readBank(file).filter((r) => r.outcome === 'applied');

export { ServiceError as BankError };

const short = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 10);

const call = (
  operation: Operation,
  args: { [key: string]: Json },
  key: string,
  apply: (applied: BankRecord[]) => Json,
): Json => applyOnce(bankFile(), operation, args, key, apply);

const holdState = (applied: BankRecord[], holdId: string): 'held' | 'sent' | 'released' | 'unknown' => {
  let state: 'held' | 'sent' | 'released' | 'unknown' = 'unknown';
  for (const r of applied) {
    const id = (r.result as { hold_id?: unknown } | null)?.hold_id;
    if (id !== holdId) continue;
    if (r.operation === 'prepare_wire') state = 'held';
    if (r.operation === 'execute_wire') state = 'sent';
    if (r.operation === 'cancel_hold') state = 'released';
  }
  return state;
};

export const bank = {
  /** Puts a hold on the funds. */
  prepareWire(args: { recipient: string; amount: number }, key: string): Json {
    return call('prepare_wire', args, key, () => ({
      hold_id: `hold_${short(key)}`,
      recipient: args.recipient,
      amount: args.amount,
      status: 'held',
    }));
  },

  /** Notifies a manager that a wire waits for approval. */
  requestApproval(args: { hold_id: string; decision_key: string }, key: string): Json {
    return call('request_approval', args, key, (applied) => {
      if (holdState(applied, args.hold_id) !== 'held') throw new ServiceError(`hold ${args.hold_id} is not active`);
      return {
        request_id: `apr_${short(key)}`,
        hold_id: args.hold_id,
        decision_key: args.decision_key,
        notified: 'manager',
      };
    });
  },

  /** Sends the wire of an active hold. */
  executeWire(args: { hold_id: string }, key: string): Json {
    return call('execute_wire', args, key, (applied) => {
      const state = holdState(applied, args.hold_id);
      if (state !== 'held') throw new ServiceError(`hold ${args.hold_id} cannot be sent (${state})`);
      return { reference: `wire_${short(key)}`, hold_id: args.hold_id, status: 'sent' };
    });
  },

  /** Releases an active hold. */
  cancelHold(args: { hold_id: string }, key: string): Json {
    return call('cancel_hold', args, key, (applied) => {
      const state = holdState(applied, args.hold_id);
      if (state !== 'held') throw new ServiceError(`hold ${args.hold_id} cannot be released (${state})`);
      return { hold_id: args.hold_id, status: 'released' };
    });
  },
};
