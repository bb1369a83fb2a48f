/**
 * Value links of a mission's history: the values events repeat must agree.
 * - the args of every scheduled effect (`runTool`) are the args its pass requested;
 * - the journal every pass step read (its recorded hash) is the journal rebuilt from
 *   history at that version, so a decision's value is what the next pass saw;
 * - an effect's result is the value the pass committed for its task (checked here for
 *   passes without recorded programs; value replay re-derives the commit otherwise);
 * - the mission's result is the value its last pass returned.
 * It also gathers what value replay (src/audit/mission/value-replay.ts) needs of each pass.
 */
import type {
  ApprovalVerdict,
  DecisionContract,
  EffectResult,
  Json,
  JournalRead,
  PassRequest,
  PassResponse,
  ToolRequest,
} from '../../workflows/mission/contract.ts';
import { applyPatch, jsonEquals } from '../../kernel/json-patch.ts';
import { waitingKey } from '../../workflows/mission/state.ts';
import { EventType, type HistoryEvent, type RunHistory, decodeAll, decodeFirst, eventId } from '../../history/fetch.ts';
import { journalHash, valueHash } from '../../history/hash.ts';
import { canonicalJson } from '../../lisp/json.ts';
import { effectToolNames } from '../../kernel/contract.ts';
import { type ObservedState, type Reconstruction, reconstruct } from '../../history/rebuild.ts';

/** One side of a failed check: the event that holds a value, and the value. */
export interface ValueSide {
  runId: string;
  eventId: number;
  /** what the event is: `pass 2 requested effects`, `execute_wire result`, ... */
  what: string;
  value: Json;
}

export interface ValueMismatch {
  /** effect-args, effect-result, journal-read, mission-result, replay, step-args, step-result, approval, ... */
  check: string;
  message: string;
  sides: [ValueSide, ValueSide];
  /** journal-read: the pass that committed the entry named, when a pass did (value replay may clear it) */
  committedBy?: number;
}

export type DonePass = Extract<PassResponse, { kind: 'done' }>;

/** What value replay needs of one finished pass. */
export interface PassRecord {
  pass: number;
  runId: string;
  /** the `runPass` scheduled event of its first step, and the completion that ended it */
  startEventId: number;
  doneEventId: number;
  input: Json;
  /** the mission's logical run id (mixed into idempotency keys) */
  keyRunId: string;
  /** the journal its first step read (rebuilt from history), with the version */
  journal: Array<[string, Json]>;
  journalVersion: number;
  summaries: Record<string, string>;
  tools: Record<string, 'read_only' | 'local' | 'memory' | 'external'>;
  /** the tools whose calls were effects (external, or waiting for approval), as the pass saw them */
  effects: string[];
  decisions: DecisionContract[];
  /** its last suspended state (packed), whose trace holds the programs of its turns so far */
  suspended: Json | null;
  /** effects it stopped at, by idempotency key, with the event that requested each */
  requested: Map<string, RequestedEffect>;
  /**
   * what its effects gave while it ran: a key a later pass asks again (a task whose
   * effect failed, asked again with other args) has another outcome there
   */
  outcomes: Map<string, RecordedEffect>;
  done: DonePass;
}

export interface RequestedEffect {
  tool: string;
  args: Json;
  taskId: string | null;
  runId: string;
  eventId: number;
}

/** A recorded effect outcome, by idempotency key, with the event that holds it. */
export interface RecordedEffect {
  result: EffectResult;
  runId: string;
  eventId: number;
  tool: string;
  taskId: string | null;
  /** what holds it when no `runTool` event does: the ledger carried into the first run (a resumed mission) */
  source?: string;
}

/** What an effect's outcome is named in a failed check: its result event, or the carried ledger entry. */
export const effectWhat = (e: RecordedEffect): string => e.source ?? `${e.tool} result`;

export interface ValueLinks {
  rebuilt: Reconstruction;
  /** links compared */
  checked: number;
  mismatches: ValueMismatch[];
  /** effect-result mismatches by pass number: kept only for passes value replay cannot re-derive */
  commitMismatches: Map<number, ValueMismatch[]>;
  passes: PassRecord[];
  /** the pass still running when the history ends (suspended on effects), if any */
  open?: OpenPassRecord | null;
  effects: Map<string, RecordedEffect>;
  /** pass steps that recorded no journal hash (histories written before it) */
  unrecordedReads: number;
}

const short = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'nil';
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

export function mismatch(check: string, a: ValueSide, b: ValueSide, why = 'differ'): ValueMismatch {
  const side = (s: ValueSide) => `event ${s.eventId} (${s.what}) has ${short(s.value)}`;
  return {
    check,
    message: `${check}: ${side(a)}; event ${b.eventId} (${b.what}) has ${short(b.value)}: ${why}`,
    sides: [a, b],
  };
}

interface Snapshot {
  version: number;
  entries: Array<[string, Json]>;
}

/** Walks the chain once, rebuilding the journal, and checks every value link on the way. */
export function checkValueLinks(chain: RunHistory[]): ValueLinks {
  const w = new LinkWalker();
  const rebuilt = reconstruct(chain, { before: (e, at) => w.before(e, at), after: (e, at) => w.after(e, at) });
  return {
    rebuilt,
    checked: w.checked,
    mismatches: w.mismatches,
    commitMismatches: w.commitMismatches,
    passes: w.passes,
    open: w.openPass,
    effects: w.effects,
    unrecordedReads: w.unrecordedReads,
  };
}

/** A pass that has not finished: what it requested so far and its last suspended state. */
export type OpenPassRecord = Omit<PassRecord, 'done' | 'doneEventId'>;

interface OpenPass {
  pass: number;
  record: OpenPassRecord;
}

class LinkWalker {
  checked = 0;
  unrecordedReads = 0;
  mismatches: ValueMismatch[] = [];
  commitMismatches = new Map<number, ValueMismatch[]>();
  passes: PassRecord[] = [];
  effects = new Map<string, RecordedEffect>();
  private scheduled = new Map<string, { type: string; input: unknown }>();
  /** An effect's outcome: the latest for its key, and the one of the pass that asked for it. */
  private recordEffect(key: string, effect: RecordedEffect): void {
    this.effects.set(key, effect);
    this.open?.record.outcomes.set(key, effect);
  }

  /** approvals of effects seen in the chain, by idempotency key: the args each approved and its event */
  private approvedArgs = new Map<string, Array<{ args: Json; eventId: number; runId: string }>>();
  /** denials of effects by idempotency key: what the program was told */
  private denials = new Map<string, string>();
  private snapshots = new Map<number, Snapshot>();
  /** the journal last found equal to what a pass read: a mismatch names what changed since */
  private verified: Snapshot = { version: 0, entries: [] };
  private open: OpenPass | null = null;
  get openPass(): OpenPassRecord | null {
    return this.open?.record ?? null;
  }
  private lastReturn: { value: Json; runId: string; eventId: number; pass: number } | null = null;

  private started = false;

  before(e: HistoryEvent, at: ObservedState): void {
    this.snapshot(at);
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED && !this.started) this.onFirstStart(e, at);
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) this.onScheduled(e, at);
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) this.onUpdate(e, at);
  }

  /**
   * The ledger the chain's first run starts with (`carried.ledger` of its input: a mission
   * restarted by `navigator resume`): the workflow answers an effect whose key completed
   * there from that entry, with no `runTool` activity (src/workflows/mission/run.ts
   * `runEffect`), so its outcome is that entry's result. Later runs carry only what this
   * chain's history already holds.
   */
  private onFirstStart(e: HistoryEvent, at: ObservedState): void {
    this.started = true;
    const from = at.state.input.resumedFrom?.workflowId;
    for (const entry of at.state.ledger) {
      const key = entry.idempotencyKey;
      const done = at.state.completedEffect(key);
      if (!done || this.effects.has(key)) continue;
      const source = `${done.tool} result in the ledger carried${from ? ` from ${from}` : ''} (entry ${done.seq})`;
      this.effects.set(key, {
        result: { ok: done.result ?? null },
        runId: at.runId,
        eventId: eventId(e),
        tool: done.tool,
        taskId: done.taskId,
        source,
      });
    }
  }

  /** A person's verdict on an effect: its args hash must be that of the args that waited. */
  private onUpdate(e: HistoryEvent, at: ObservedState): void {
    const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (input?.name !== 'approveEffect') return;
    const v = decodeAll(input.args)[0] as ApprovalVerdict;
    const asked = this.open?.record.requested.get(v.key);
    if (!v.approved) this.denials.set(v.key, `denied${v.by ? ` by ${v.by}` : ''}${v.note ? `: ${v.note}` : ''}`);
    // an update is accepted only for an effect that waits: what it approved are the args that waited
    if (v.approved && asked)
      this.approvedArgs.set(v.key, [
        ...(this.approvedArgs.get(v.key) ?? []),
        { args: asked.args, eventId: eventId(e), runId: at.runId },
      ]);
    if (!asked || v.argsHash === undefined) return;
    this.checked++;
    const hash = valueHash(asked.args);
    if (hash === v.argsHash) return;
    const verdict: ValueSide = {
      runId: at.runId,
      eventId: eventId(e),
      what: `${v.approved ? 'approval' : 'denial'} of ${asked.tool} (args hash)`,
      value: v.argsHash,
    };
    this.mismatches.push(
      mismatch('approval', verdict, {
        runId: asked.runId,
        eventId: asked.eventId,
        what: `pass ${this.open!.pass} requested ${asked.tool}: args hash ${hash}`,
        value: asked.args,
      }),
    );
  }

  /**
   * An effect of a tool that needs approval has no activity when it was not approved
   * (denied, no verdict by its deadline, mission cancelled): the program got the tool's
   * error instead, so value replay answers it with an error too.
   */
  private notApproved(at: ObservedState): void {
    const gated = new Set(at.state.agent?.approvals ?? []);
    for (const [key, r] of this.open?.record.requested ?? []) {
      if (!gated.has(r.tool) || this.open!.record.outcomes.has(key)) continue;
      const why = this.denials.get(key) ?? 'no approval before the deadline';
      this.recordEffect(key, {
        result: { error: `tool ${r.tool} was not approved: ${why}` },
        runId: r.runId,
        eventId: r.eventId,
        tool: r.tool,
        taskId: r.taskId,
      });
    }
  }

  after(e: HistoryEvent, at: ObservedState): void {
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) this.onCompleted(e, at);
    else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED) this.onFailed(e, at);
    else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) this.onMissionCompleted(e, at);
    this.snapshot(at);
  }

  private key = (runId: string, id: unknown) => `${runId}:${Number(id)}`;

  /** The journal at each version, as history rebuilds it. */
  private snapshot(at: ObservedState): void {
    const v = at.state.journalVersion;
    if (!this.snapshots.has(v)) this.snapshots.set(v, { version: v, entries: at.state.journalEntries() });
  }

  private onScheduled(e: HistoryEvent, at: ObservedState): void {
    const a = e.activityTaskScheduledEventAttributes!;
    const type = a.activityType?.name ?? '';
    const input = decodeFirst(a.input);
    this.scheduled.set(this.key(at.runId, eventId(e)), { type, input });
    if (type === 'runPass') {
      const req = input as PassRequest;
      if (req.resume) this.notApproved(at);
      else this.open = { pass: req.pass, record: this.newPass(req, e, at) };
      return;
    }
    if (type === 'runTool') {
      this.checkEffectArgs(input as ToolRequest, e, at);
      this.checkApproved(input as ToolRequest, e, at);
    }
  }

  /**
   * An effect of a tool that needs approval runs only after a person approved these exact
   * args: an accepted approval in the chain, or one carried into this run (continue-as-new).
   */
  private checkApproved(req: ToolRequest, e: HistoryEvent, at: ObservedState): void {
    if (!(at.state.agent?.approvals ?? []).includes(req.tool)) return;
    this.checked++;
    const seen = this.approvedArgs.get(req.idempotencyKey) ?? [];
    if (seen.some((a) => jsonEquals(a.args, req.args)) || at.state.approvals.approved(req.idempotencyKey, req.args))
      return;
    const scheduled: ValueSide = {
      runId: at.runId,
      eventId: eventId(e),
      what: `${req.tool} scheduled`,
      value: req.args,
    };
    const last = seen.at(-1);
    const approvals: ValueSide = last
      ? { runId: last.runId, eventId: last.eventId, what: `approval of ${req.tool}`, value: last.args }
      : {
          runId: at.runId,
          eventId: this.open?.record.startEventId ?? 0,
          what: `pass ${this.open?.pass ?? '?'}: approvals of ${req.tool}`,
          value: null,
        };
    this.mismatches.push(
      mismatch(
        'approval',
        scheduled,
        approvals,
        `${req.tool} needs a person's approval, and no approval of these args came before it ran`,
      ),
    );
  }

  private newPass(req: PassRequest, e: HistoryEvent, at: ObservedState): OpenPass['record'] {
    const s = at.state;
    return {
      pass: req.pass,
      runId: at.runId,
      startEventId: eventId(e),
      input: s.input.input as Json,
      keyRunId: s.runId,
      journal: s.journalEntries(),
      journalVersion: s.journalVersion,
      summaries: { ...s.summaries },
      tools: { ...(s.agent?.tools ?? {}) },
      effects: [...effectToolNames(s.agent?.tools ?? {}, s.agent?.approvals)],
      decisions: s.agent?.decisions ?? [],
      suspended: null,
      requested: new Map(),
      outcomes: new Map(),
    };
  }

  /** A scheduled effect's args are what its pass requested. */
  private checkEffectArgs(req: ToolRequest, e: HistoryEvent, at: ObservedState): void {
    const asked = this.open?.record.requested.get(req.idempotencyKey);
    const scheduled: ValueSide = {
      runId: at.runId,
      eventId: eventId(e),
      what: `${req.tool} scheduled`,
      value: { tool: req.tool, taskId: req.taskId, args: req.args },
    };
    this.checked++;
    if (!asked) {
      this.mismatches.push(
        mismatch(
          'effect-args',
          scheduled,
          {
            runId: at.runId,
            eventId: this.open?.record.startEventId ?? 0,
            what: `pass ${this.open?.pass ?? '?'} requested effects`,
            value: null,
          },
          'no pass requested this effect (idempotency key)',
        ),
      );
      return;
    }
    const requested = { tool: asked.tool, taskId: asked.taskId, args: asked.args };
    if (!same(requested, scheduled.value)) {
      this.mismatches.push(
        mismatch('effect-args', scheduled, {
          runId: asked.runId,
          eventId: asked.eventId,
          what: `pass ${this.open!.pass} requested ${asked.tool}`,
          value: requested,
        }),
      );
    }
  }

  private onCompleted(e: HistoryEvent, at: ObservedState): void {
    const a = e.activityTaskCompletedEventAttributes!;
    const origin = this.scheduled.get(this.key(at.runId, a.scheduledEventId));
    if (!origin) return;
    const result = decodeFirst(a.result);
    if (origin.type === 'runTool') {
      const req = origin.input as ToolRequest;
      const ok = (result as { result?: Json } | undefined)?.result ?? null;
      this.recordEffect(req.idempotencyKey, {
        result: { ok },
        runId: at.runId,
        eventId: eventId(e),
        tool: req.tool,
        taskId: req.taskId,
      });
      return;
    }
    if (origin.type === 'runPass') this.onPassStep(origin.input as PassRequest, result as PassResponse, e, at);
  }

  private onFailed(e: HistoryEvent, at: ObservedState): void {
    const a = e.activityTaskFailedEventAttributes!;
    const origin = this.scheduled.get(this.key(at.runId, a.scheduledEventId));
    if (origin?.type !== 'runTool') return;
    const req = origin.input as ToolRequest;
    this.recordEffect(req.idempotencyKey, {
      result: { error: a.failure?.message ?? 'failed' },
      runId: at.runId,
      eventId: eventId(e),
      tool: req.tool,
      taskId: req.taskId,
    });
  }

  private onPassStep(req: PassRequest, res: PassResponse, e: HistoryEvent, at: ObservedState): void {
    const id = eventId(e);
    this.checkJournalRead(req, res.journalRead, id, at);
    const open = this.open?.pass === req.pass ? this.open : null;
    if (open && !req.resume && res.journalRead) Object.assign(open.record, this.readJournal(res.journalRead));
    if (res.kind === 'effects') {
      if (!open) return;
      open.record.suspended =
        res.state ?? (applyPatch(open.record.suspended as Json | null, res.patch ?? null) as Json);
      for (const eff of res.effects) {
        open.record.requested.set(eff.idempotencyKey, {
          tool: eff.tool,
          args: eff.args,
          taskId: eff.taskId,
          runId: at.runId,
          eventId: id,
        });
      }
      return;
    }
    if (open) {
      // the input the programs saw: recorded when the agent's schema changed it, else in the suspended state, else the mission's
      const input = res.programInput ?? (open.record.suspended as { input?: Json } | null)?.input ?? open.record.input;
      this.passes.push({ ...open.record, input, done: res, doneEventId: id });
      this.checkCommits(open.record, res, id, at);
    }
    this.open = null;
    const o = res.outcome;
    this.lastReturn =
      o.kind === 'return' && waitingKey(at.state, o.value) === null
        ? { value: o.value, runId: at.runId, eventId: id, pass: req.pass }
        : null;
  }

  /** The journal at the version a step read, for value replay (the first step's). */
  private readJournal(read: JournalRead): { journal: Array<[string, Json]>; journalVersion: number } | object {
    const snap = this.snapshots.get(read.version);
    return snap ? { journal: snap.entries, journalVersion: snap.version } : {};
  }

  /** The journal a pass step read (its hash) is the one rebuilt from history at that version. */
  private checkJournalRead(req: PassRequest, read: JournalRead | undefined, id: number, at: ObservedState): void {
    if (!read) {
      this.unrecordedReads++;
      return;
    }
    this.checked++;
    const pass: ValueSide = {
      runId: at.runId,
      eventId: id,
      what: `pass ${req.pass} read journal version ${read.version}`,
      value: `hash ${read.hash}`,
    };
    const snap = this.snapshots.get(read.version);
    if (!snap) {
      this.mismatches.push(
        mismatch(
          'journal-read',
          pass,
          {
            runId: at.runId,
            eventId: id,
            what: 'journal rebuilt from history',
            value: `versions up to ${at.state.journalVersion}`,
          },
          'history never had this version',
        ),
      );
      return;
    }
    const hash = journalHash(snap.entries, read.order ?? 'commit');
    if (hash === read.hash) {
      this.verified = snap;
      return;
    }
    // name what changed since the journal last found equal to what a pass read
    const before = new Map(this.verified.entries);
    const changed = snap.entries.filter(([k, v]) => !before.has(k) || !same(before.get(k), v));
    const removed = [...before.keys()].filter((k) => !snap.entries.some(([x]) => x === k));
    if (changed.length === 0 && removed.length === 0) {
      this.mismatches.push(
        mismatch('journal-read', pass, {
          runId: at.runId,
          eventId: id,
          what: `journal rebuilt to version ${snap.version}`,
          value: `hash ${hash}`,
        }),
      );
      return;
    }
    for (const [k, v] of changed) {
      const p = at.provenance.get(k);
      const byPass = /^pass (\d+)$/.exec(p?.source ?? '');
      const m = mismatch(
        'journal-read',
        pass,
        {
          runId: p?.runId ?? at.runId,
          eventId: p?.eventId ?? 0,
          what: `${p?.source ?? 'an event'} committed ${k}`,
          value: v,
        },
        `the pass read another journal (rebuilt: hash ${hash}); ${k} changed since the last journal a pass read as rebuilt`,
      );
      this.mismatches.push(byPass ? { ...m, committedBy: Number(byPass[1]) } : m);
    }
    for (const k of removed) {
      this.mismatches.push(
        mismatch(
          'journal-read',
          pass,
          { runId: at.runId, eventId: 0, what: `${k} removed`, value: null },
          `the pass read another journal (rebuilt: hash ${hash})`,
        ),
      );
    }
  }

  /** An effect's result is the value its pass committed for its task. */
  private checkCommits(record: OpenPass['record'], done: DonePass, id: number, at: ObservedState): void {
    const committed = new Map(done.journalDelta);
    const out: ValueMismatch[] = [];
    for (const [key, asked] of record.requested) {
      const effect = this.effects.get(key);
      if (!asked.taskId || !effect || !('ok' in effect.result) || !committed.has(asked.taskId)) continue;
      this.checked++;
      const value = committed.get(asked.taskId)!;
      if (same(value, effect.result.ok)) continue;
      out.push(
        mismatch(
          'effect-result',
          { runId: effect.runId, eventId: effect.eventId, what: effectWhat(effect), value: effect.result.ok },
          { runId: at.runId, eventId: id, what: `pass ${record.pass} committed ${asked.taskId}`, value },
        ),
      );
    }
    if (out.length) this.commitMismatches.set(record.pass, out);
  }

  /** The mission's result is what its last pass returned. */
  private onMissionCompleted(e: HistoryEvent, at: ObservedState): void {
    if (!this.lastReturn) return;
    const result = decodeFirst<Json>(e.workflowExecutionCompletedEventAttributes?.result) ?? null;
    this.checked++;
    if (same(result, this.lastReturn.value)) return;
    const r = this.lastReturn;
    this.mismatches.push(
      mismatch(
        'mission-result',
        { runId: at.runId, eventId: eventId(e), what: 'mission completed with', value: result },
        { runId: r.runId, eventId: r.eventId, what: `pass ${r.pass} returned`, value: r.value },
      ),
    );
  }
}

export const same = (a: unknown, b: unknown): boolean =>
  canonicalJson((a ?? null) as Json) === canonicalJson((b ?? null) as Json);
