/**
 * Retention of the payload store: an object is kept as long as a history that Temporal
 * still retains references it. `collectGarbage` lists every workflow of the namespace that
 * visibility still returns (open, and closed within the namespace's retention), reads each
 * history's references (through the codecs after the claim check, so encrypted references
 * are read too), and deletes only objects that none of them references and that are older
 * than `olderThanMs`, which covers what is written but not yet in a history (an activity
 * that stored its answer ahead and has not completed, a query's answer being read).
 *
 * A store shared by several namespaces must be collected with all of them (`namespaces`),
 * or each namespace given a prefix of its own.
 */
import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { KNOWN_FOR_MS, OffloadCodec, referenceOf } from './offload-codec.ts';
import type { PayloadStore } from './store.ts';

export interface GcOptions {
  /** clients of every namespace whose histories may reference the store */
  clients: Client[];
  store: PayloadStore;
  /** the codecs of the data converter (the claim check among them): references are read below it */
  codecs: readonly PayloadCodec[];
  /** objects written more recently are kept whatever references them */
  olderThanMs: number;
  /** list what would go, delete nothing */
  dryRun?: boolean;
  /** accept an age under MIN_GC_AGE_MS (tests) */
  allowYoung?: boolean;
  now?: Date;
}

export interface GcReport {
  histories: number;
  referenced: number;
  objects: number;
  kept: number;
  deleted: Array<{ key: string; size: number }>;
  freedBytes: number;
}

const isPayload = (v: unknown): v is Payload =>
  typeof v === 'object' &&
  v !== null &&
  'metadata' in v &&
  typeof (v as Payload).metadata === 'object' &&
  (v as Payload).metadata !== null &&
  'data' in v;

/** The digests `value` (a history) references, decoded through the codecs that run after the claim check. */
export async function referencedDigests(
  value: unknown,
  below: readonly PayloadCodec[],
  into = new Set<string>(),
): Promise<Set<string>> {
  const seen = new Set<object>();
  const walk = async (v: unknown): Promise<void> => {
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || seen.has(v)) return;
    seen.add(v);
    if (isPayload(v)) {
      let out = [v];
      for (let i = below.length - 1; i >= 0; i--) out = await below[i]!.decode(out);
      const ref = referenceOf(out[0]!);
      if (ref) into.add(ref.sha256);
      return;
    }
    for (const x of Object.values(v as Record<string, unknown>)) await walk(x);
  };
  await walk(value);
  return into;
}

/** The least age gc accepts: a process trusts its own writes for KNOWN_FOR_MS, and work in flight needs time to reach history. */
export const MIN_GC_AGE_MS = 60 * 60 * 1000;

export async function collectGarbage(opts: GcOptions): Promise<GcReport> {
  if (opts.olderThanMs < MIN_GC_AGE_MS && !opts.allowYoung)
    throw new Error(
      `--older-than must be at least 1h: a worker trusts an object it wrote for ${KNOWN_FOR_MS / 60_000} minutes, and an answer stored ahead may not be in history yet`,
    );
  const at = opts.codecs.findIndex((c) => c instanceof OffloadCodec);
  // the codecs that encode after the claim check (encryption) must be undone to see a reference
  const below = at < 0 ? [] : opts.codecs.slice(at + 1);
  const referenced = new Set<string>();
  let histories = 0;
  for (const client of opts.clients) {
    for await (const execution of client.workflow.list()) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      await referencedDigests(history, below, referenced);
      histories++;
    }
  }
  const cutoff = (opts.now ?? new Date()).getTime() - opts.olderThanMs;
  const report: GcReport = { histories, referenced: referenced.size, objects: 0, kept: 0, deleted: [], freedBytes: 0 };
  for await (const object of opts.store.list()) {
    report.objects++;
    const digest = object.key.slice('sha256/'.length);
    if (referenced.has(digest) || object.modified.getTime() > cutoff) {
      report.kept++;
      continue;
    }
    if (!opts.dryRun) await opts.store.delete(object.key);
    report.deleted.push({ key: object.key, size: object.size });
    report.freedBytes += object.size;
  }
  return report;
}

/** `7d`, `12h`, `30m`, `45s` as milliseconds. */
export function parseAge(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(d|h|m|s)$/.exec(text.trim());
  if (!m) throw new Error(`not an age: ${JSON.stringify(text)} (use e.g. 7d, 12h, 30m)`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[m[2] as 'd' | 'h' | 'm' | 's'];
  return Number(m[1]) * unit;
}
