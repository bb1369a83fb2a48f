/**
 * The state of a fake external service as an append-only JSON-lines file, so it behaves
 * like a real one where it matters: every call carries an idempotency key, each key is
 * applied at most once (a repeated key returns the first result and changes nothing),
 * every call is recorded, and the state survives a killed process (the next call reads
 * the file again). The examples' services (the bank, the report job's storage and mail)
 * are built on it; tests read the file to prove what happened exactly once.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface ServiceRecord<Op extends string = string> {
  operation: Op;
  args: { [key: string]: Json };
  idempotencyKey: string;
  outcome: 'applied' | 'deduplicated' | 'rejected';
  result?: Json;
  error?: string;
  at: string;
}

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
}

/** Every call recorded in `file` so far, in order. */
export function readRecords<Op extends string>(file: string): ServiceRecord<Op>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as ServiceRecord<Op>);
}

function append(file: string, rec: ServiceRecord): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(rec)}\n`);
}

/**
 * Applies `operation` under `idempotencyKey` at most once. `apply` gets the calls applied
 * so far (the service's state) and returns the result, or throws to reject the call.
 */
export function applyOnce<Op extends string>(
  file: string,
  operation: Op,
  args: { [key: string]: Json },
  idempotencyKey: string,
  apply: (applied: ServiceRecord<Op>[]) => Json,
): Json {
  const history = readRecords<Op>(file);
  const at = new Date().toISOString();
  const first = history.find((r) => r.idempotencyKey === idempotencyKey && r.outcome === 'applied');
  if (first) {
    if (first.operation !== operation) {
      const error = `idempotency key already used for ${first.operation}`;
      append(file, { operation, args, idempotencyKey, outcome: 'rejected', error, at });
      throw new ServiceError(error);
    }
    append(file, { operation, args, idempotencyKey, outcome: 'deduplicated', result: first.result ?? null, at });
    return first.result ?? null;
  }
  let result: Json;
  try {
    result = apply(history.filter((r) => r.outcome === 'applied'));
  } catch (e) {
    append(file, { operation, args, idempotencyKey, outcome: 'rejected', error: (e as Error).message, at });
    throw e;
  }
  append(file, { operation, args, idempotencyKey, outcome: 'applied', result, at });
  return result;
}
