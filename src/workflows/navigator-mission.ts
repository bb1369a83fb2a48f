/**
 * The `navigatorMission` workflow: passes and effects as activities, the journal in
 * workflow state, approvals through updates and signals. State and rules live in
 * MissionState; the pass loop lives in mission-loop.ts; this file wires messages.
 */
import * as wf from '@temporalio/workflow';
import { CancelRequest, Decision, JournalWrite, MissionInput, TaskReset, type Json } from './contract.ts';
import { MissionState, decisionProblem } from './mission-state.ts';
import * as m from './messages.ts';
import { runMission } from './mission-loop.ts';
import { renderMissionLog, renderProgress } from './views.ts';

export async function navigatorMission(raw: MissionInput): Promise<Json> {
  const parsed = MissionInput.safeParse(raw);
  if (!parsed.success) {
    throw wf.ApplicationFailure.nonRetryable(`invalid mission input: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`, 'InvalidMissionInput');
  }
  const info = wf.workflowInfo();
  const state = new MissionState(parsed.data, info.workflowId, Date.now());
  setHandlers(state);
  return runMission(state);
}

function setHandlers(state: MissionState): void {
  const ack = () => ({ journalVersion: state.journalVersion });

  const decide = (d: Decision) => state.writeByPerson(d.key, d.value);
  wf.setHandler(m.decideUpdate, (d) => (decide(Decision.parse(d)), ack()), {
    validator: (d) => {
      const parsed = Decision.parse(d);
      const problem = decisionProblem(state, parsed.key, parsed.value);
      if (problem) throw new Error(problem);
    },
  });
  wf.setHandler(m.decideSignal, (d) => {
    const parsed = Decision.safeParse(d);
    const problem = parsed.success ? decisionProblem(state, parsed.data.key, parsed.data.value) : parsed.error.message;
    if (problem) state.rejectedSignals.push({ signal: 'decide', reason: problem });
    else decide(parsed.data!);
  });

  const finished = () => ['completed', 'failed', 'cancelled', 'budget_exhausted'].includes(state.status);
  const notFinished = () => {
    if (finished()) throw new Error(`the mission is ${state.status}`);
  };
  wf.setHandler(m.writeJournalUpdate, (w) => (state.writeByPerson(w.key, JournalWrite.parse(w).value), ack()), {
    validator: (w) => (JournalWrite.parse(w), notFinished()),
  });
  wf.setHandler(m.writeJournalSignal, (w) => {
    const parsed = JournalWrite.safeParse(w);
    if (parsed.success && !finished()) state.writeByPerson(parsed.data.key, parsed.data.value);
    else state.rejectedSignals.push({ signal: 'writeJournal', reason: parsed.success ? `the mission is ${state.status}` : parsed.error.message });
  });
  wf.setHandler(m.resetTaskUpdate, (r) => (state.resetByPerson(TaskReset.parse(r).key), ack()), {
    validator: (r) => {
      const { key } = TaskReset.parse(r);
      notFinished();
      if (!state.journal.has(key)) throw new Error(`no task ${JSON.stringify(key)} in the journal`);
    },
  });
  wf.setHandler(m.resetTaskSignal, (r) => {
    const parsed = TaskReset.safeParse(r);
    if (parsed.success && state.journal.has(parsed.data.key)) state.resetByPerson(parsed.data.key);
    else state.rejectedSignals.push({ signal: 'resetTask', reason: parsed.success ? `no task ${JSON.stringify(parsed.data.key)} in the journal` : parsed.error.message });
  });
  wf.setHandler(m.cancelUpdate, (c) => ((state.cancelReason = CancelRequest.parse(c).reason), ack()), {
    validator: (c) => (CancelRequest.parse(c), notFinished()),
  });
  wf.setHandler(m.cancelSignal, (c) => {
    const parsed = CancelRequest.safeParse(c);
    state.cancelReason = parsed.success ? parsed.data.reason : 'cancelled';
  });

  wf.setHandler(m.statusQuery, () => state.statusView(wf.workflowInfo().runId, Date.now()));
  wf.setHandler(m.journalQuery, () => ({ version: state.journalVersion, entries: state.journalEntries() }));
  wf.setHandler(m.summariesQuery, () => state.summaries);
  wf.setHandler(m.progressQuery, () => renderProgress(state.agent?.plan ?? [], state.summaries));
  wf.setHandler(m.missionLogQuery, () => renderMissionLog(state.journalEntries()));
  wf.setHandler(m.ledgerQuery, () => state.ledger);
  wf.setHandler(m.pendingQuery, () => state.pending);
  wf.setHandler(m.decisionsQuery, () => state.agent?.decisions ?? []);
  wf.setHandler(m.passContextQuery, () => state.passContext());
}
