/**
 * Signals, updates and queries of the mission workflow. Declared once here; the workflow
 * sets handlers, the client and the activities send them by these same definitions.
 * decide / writeJournal / resetTask / cancel exist both as updates (validated, the caller
 * learns at once if the input is bad) and as signals (fire and forget: bad input is
 * recorded as rejected and changes nothing).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ApprovalVerdict,
  DecisionContract,
  DecisionVerdict,
  JournalEntries,
  LedgerEntry,
  MissionOverview,
  PassContext,
  Pending,
  StatusView,
} from './contract.ts';

export interface Ack {
  journalVersion: number;
}

export const decideUpdate = defineUpdate<Ack, [DecisionVerdict]>('decide');
export const writeJournalUpdate = defineUpdate<Ack, [{ key: string; value: unknown }]>('writeJournal');
export const resetTaskUpdate = defineUpdate<Ack, [{ key: string }]>('resetTask');
export const cancelUpdate = defineUpdate<Ack, [{ reason?: string }]>('cancel');
/** approves or denies an effect waiting for a person (see approval-gate.ts) */
export const approveEffectUpdate = defineUpdate<{ key: string; approved: boolean }, [ApprovalVerdict]>('approveEffect');

export const decideSignal = defineSignal<[DecisionVerdict]>('decide');
export const writeJournalSignal = defineSignal<[{ key: string; value: unknown }]>('writeJournal');
export const resetTaskSignal = defineSignal<[{ key: string }]>('resetTask');
export const cancelSignal = defineSignal<[{ reason?: string }]>('cancel');

export const statusQuery = defineQuery<StatusView>('status');
export const journalQuery = defineQuery<{ version: number; entries: JournalEntries }>('journal');
export const summariesQuery = defineQuery<Record<string, string>>('summaries');
export const progressQuery = defineQuery<string>('progress');
export const missionLogQuery = defineQuery<string>('missionLog');
export const ledgerQuery = defineQuery<LedgerEntry[]>('ledger');
/** status, journal, ledger, progress, summaries and decisions at once (the console's mission page) */
export const overviewQuery = defineQuery<MissionOverview>('overview');
export const pendingQuery = defineQuery<Pending | null>('pending');
/** the agent's decision contracts for this mission's input */
export const decisionsQuery = defineQuery<DecisionContract[]>('decisions');
/** read by the pass activity so that its input stays small */
export const passContextQuery = defineQuery<PassContext>('passContext');
