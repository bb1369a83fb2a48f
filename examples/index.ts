/**
 * The bundled example agents, by name: what the worker registers and what
 * `navigator agent run NAME` runs. Each comes with the model that drives it: the
 * recorded answers, unless NAVIGATOR_MODEL names a real model.
 */
import { createModel, createScriptedModel } from '../src/llm/index.ts';
import type { ChatModel } from '../src/llm/model.ts';
import type { Agent } from '../src/navigator/index.ts';
import { answersFile, defaultInput as wireInput, wireTransfer } from './wire-transfer/index.ts';
import { plannerAnswersFile, workspaceAgent } from './workspace/index.ts';
import { answersFile as reportAnswersFile, defaultInput as reportInput, reportJob } from './report-job/index.ts';

export interface ExampleAgent {
  agent: Agent;
  /** made once per pass; the scripted model picks answers by what the prompt contains */
  model: () => ChatModel;
  /** the input used when none is given */
  defaultInput?: Record<string, unknown>;
}

const recordedOr = (file: string) => (): ChatModel =>
  process.env.NAVIGATOR_MODEL ? createModel(process.env.NAVIGATOR_MODEL) : createScriptedModel(file);

export const exampleAgents: Record<string, ExampleAgent> = {
  'wire-transfer': { agent: wireTransfer as unknown as Agent, model: recordedOr(answersFile), defaultInput: wireInput },
  workspace: { agent: workspaceAgent as unknown as Agent, model: recordedOr(plannerAnswersFile) },
  'report-job': {
    agent: reportJob as unknown as Agent,
    model: recordedOr(reportAnswersFile),
    defaultInput: reportInput,
  },
};
