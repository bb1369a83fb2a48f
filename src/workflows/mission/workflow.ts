/**
 * The `navigatorMission` workflow: passes and effects as activities, the journal in
 * workflow state, approvals through updates and signals. State and rules live in
 * MissionState; the pass loop lives in mission-loop.ts; this file wires messages.
 */
import { problemsText } from '../../kernel/contract.ts';
import * as wf from '@temporalio/workflow';
import { failure } from '../../kernel/failures.ts';
import type { Json, MissionInput } from './contract.ts';
import {
  checkApprovalVerdict,
  checkCancel,
  checkDecision,
  checkJournalWrite,
  checkMissionInput,
  checkTaskReset,
  type Checked,
} from './guards.ts';
import { MissionState, decisionProblem } from './state.ts';
import * as m from './messages.ts';
import { runMission } from './run.ts';
import { renderMissionLog, renderProgress } from './views.ts';

export async function navigatorMission(raw: MissionInput): Promise<Json> {
  const parsed = checkMissionInput(raw);
  if (!parsed.ok) throw failure('InvalidMissionInput', `invalid mission input: ${problemsText(parsed.problems)}`);
  const info = wf.workflowInfo();
  const state = new MissionState(parsed.value, info.workflowId, Date.now());
  setHandlers(state);
  return runMission(state);
}

/** The checked value, or an Error listing the problems (thrown by validators). */
function valid<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new Error(`invalid input: ${problemsText(checked.problems)}`);
  return checked.value;
}

function setHandlers(state: MissionState): void {
  const ack = () => ({ journalVersion: state.journalVersion });
  const finished = () => ['completed', 'failed', 'cancelled', 'budget_exhausted'].includes(state.status);
  const notFinished = () => {
    if (finished()) throw new Error(`the mission is ${state.status}`);
  };
  const reject = (signal: string, reason: string) => state.rejectedSignals.push({ signal, reason });
  const problemsOf = <T>(c: Checked<T>) => (c.ok ? null : problemsText(c.problems));

  // decide: the update's validator rejects bad input; a bad signal is recorded as rejected.
  const decisionError = (raw: unknown): string | null => {
    const c = checkDecision(raw);
    return c.ok ? decisionProblem(state, c.value.key, c.value.value, c.value.role) : problemsOf(c);
  };
  const decide = (raw: unknown) => {
    const d = valid(checkDecision(raw));
    state.writeByPerson(d.key, d.value);
  };
  wf.setHandler(m.decideUpdate, (d) => (decide(d), ack()), {
    validator: (d) => {
      const problem = decisionError(d);
      if (problem) throw new Error(problem);
    },
  });
  wf.setHandler(m.decideSignal, (d) => {
    const problem = decisionError(d);
    if (problem) reject('decide', problem);
    else decide(d);
  });

  wf.setHandler(
    m.writeJournalUpdate,
    (w) => {
      const { key, value } = valid(checkJournalWrite(w));
      state.writeByPerson(key, value);
      return ack();
    },
    { validator: (w) => (valid(checkJournalWrite(w)), notFinished()) },
  );
  wf.setHandler(m.writeJournalSignal, (w) => {
    const c = checkJournalWrite(w);
    if (!c.ok) return void reject('writeJournal', problemsOf(c)!);
    if (finished()) return void reject('writeJournal', `the mission is ${state.status}`);
    state.writeByPerson(c.value.key, c.value.value);
  });

  const resetProblem = (raw: unknown): string | null => {
    const c = checkTaskReset(raw);
    if (!c.ok) return problemsOf(c);
    return state.journal.has(c.value.key) ? null : `no task ${JSON.stringify(c.value.key)} in the journal`;
  };
  wf.setHandler(m.resetTaskUpdate, (r) => (state.resetByPerson(valid(checkTaskReset(r)).key), ack()), {
    validator: (r) => {
      notFinished();
      const problem = resetProblem(r);
      if (problem) throw new Error(problem);
    },
  });
  wf.setHandler(m.resetTaskSignal, (r) => {
    const problem = resetProblem(r);
    if (problem) reject('resetTask', problem);
    else state.resetByPerson(valid(checkTaskReset(r)).key);
  });

  wf.setHandler(m.cancelUpdate, (c) => ((state.cancelReason = valid(checkCancel(c)).reason), ack()), {
    validator: (c) => (valid(checkCancel(c)), notFinished()),
  });
  wf.setHandler(m.cancelSignal, (c) => {
    const checked = checkCancel(c);
    state.cancelReason = checked.ok ? checked.value.reason : 'cancelled';
  });

  // approveEffect: only an effect that waits now, one verdict each
  wf.setHandler(
    m.approveEffectUpdate,
    (raw) => {
      const v = valid(checkApprovalVerdict(raw));
      state.approvals.decide(v);
      return { key: v.key, approved: v.approved };
    },
    {
      validator: (raw) => {
        const problem = state.approvals.problem(valid(checkApprovalVerdict(raw)));
        if (problem) throw new Error(problem);
      },
    },
  );

  // each read once, for its own query and for the overview that answers them together
  const status = () => state.statusView(wf.workflowInfo().runId, Date.now());
  const journal = () => ({ version: state.journalVersion, entries: state.journalEntries() });
  const progress = () => renderProgress(state.agent?.plan ?? [], state.summaries);
  const decisions = () => state.agent?.decisions ?? [];
  wf.setHandler(m.statusQuery, status);
  wf.setHandler(m.journalQuery, journal);
  wf.setHandler(m.summariesQuery, () => state.summaries);
  wf.setHandler(m.progressQuery, progress);
  wf.setHandler(m.missionLogQuery, () => renderMissionLog(state.journalEntries()));
  wf.setHandler(m.ledgerQuery, () => state.ledger);
  wf.setHandler(m.pendingQuery, () => state.pending);
  wf.setHandler(m.decisionsQuery, decisions);
  wf.setHandler(m.overviewQuery, () => ({
    status: status(),
    journal: journal(),
    ledger: state.ledger,
    progress: progress(),
    summaries: state.summaries,
    decisions: decisions(),
  }));
  wf.setHandler(m.passContextQuery, () => state.passContext());
}
