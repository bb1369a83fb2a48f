/**
 * `navigator agent run AGENT`: one pass in-process (library mode, no Temporal).
 *
 * AGENT is an example name (`wire-transfer`) or a module path whose default export is
 * an agent (or `{agent, model}`). The journal file, when given, is read before the pass
 * (a JSON object of task id → value, or an array of `[id, value]` entries; a missing
 * file is an empty journal) and written back after it as a JSON object in commit order.
 * Write a decision into that file and run again to continue a waiting mission.
 *
 * Exit codes: 0 for a returned value or a waiting mission, 1 for `(fail v)`, 2 for an
 * error (also bad input).
 */
import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { createModel, createRecordingModel } from '../../llm/index.ts';
import type { ChatModel } from '../../llm/model.ts';
import type { Json } from '../../lisp/tools.ts';
import { type Agent, InputError, type PassResult, runNavigator } from '../../navigator/index.ts';
import { CliError, action } from '../errors.ts';
import { importModule, parseJson, readJsonFile, readText } from '../input.ts';

interface RunFlags {
  input?: string;
  journal?: string;
  model?: string;
  runId?: string;
  effects?: string;
  record?: string;
  json?: boolean;
}

interface Resolved {
  agent: Agent;
  model?: () => ChatModel;
  defaultInput?: unknown;
}

const isAgent = (v: unknown): v is Agent => typeof v === 'object' && v !== null && (v as Agent).kind === 'agent';

const JournalFile = z.union([z.array(z.tuple([z.string().min(1), z.unknown()])), z.record(z.string(), z.unknown())]);

export async function resolveAgent(spec: string): Promise<Resolved> {
  const { exampleAgents } = await import('../../../examples/index.ts');
  const example = exampleAgents[spec];
  if (example) return example;
  const looksLikePath = /[\\/]|\.[cm]?[jt]s$/.test(spec);
  if (!looksLikePath) {
    throw new CliError(
      `unknown agent ${JSON.stringify(spec)}: examples are ${Object.keys(exampleAgents).join(', ')}; or give a module path`,
      2,
    );
  }
  const mod = await importModule(spec);
  const exported = mod.default;
  if (isAgent(exported)) return { agent: exported };
  if (exported && typeof exported === 'object' && isAgent((exported as Resolved).agent)) return exported as Resolved;
  throw new CliError(`${spec}: the default export must be an agent (defineAgent) or {agent, model}`, 2);
}

async function readJournal(file: string): Promise<Array<[string, Json]>> {
  if (!existsSync(file)) return [];
  const text = await readText(file);
  if (!text.trim()) return [];
  const parsed = JournalFile.safeParse(parseJson(text, `journal (${file})`));
  if (!parsed.success)
    throw new CliError(`journal (${file}) must be a JSON object of task id → value, or [id, value] entries`, 2);
  return (Array.isArray(parsed.data) ? parsed.data : Object.entries(parsed.data)) as Array<[string, Json]>;
}

/** The journal as a JSON object, keys in commit order (as far as JSON objects keep it). */
export function journalObject(entries: ReadonlyArray<readonly [string, Json]>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of entries) out[k] = v;
  return out;
}

async function readInput(flag: string | undefined, fallback: unknown): Promise<unknown> {
  if (flag === undefined) return fallback ?? {};
  if (flag.startsWith('@')) return readJsonFile(flag.slice(1), 'input');
  return parseJson(flag, '--input');
}

/** The model to use, wrapped in a recorder when `--record FILE` is given. */
function chooseModel(resolved: Resolved, flag: string | undefined, record: string | undefined): ChatModel {
  const model = pickModel(resolved, flag);
  return record ? createRecordingModel(model, record) : model;
}

function pickModel(resolved: Resolved, flag: string | undefined): ChatModel {
  try {
    if (flag) return createModel(flag);
    if (resolved.model) return resolved.model();
    const spec = resolved.agent.model ?? process.env.NAVIGATOR_MODEL;
    if (!spec)
      throw new CliError(`agent ${resolved.agent.name} names no model: pass --model or set NAVIGATOR_MODEL`, 2);
    return createModel(spec);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`model: ${(e as Error).message}`, 2);
  }
}

async function runAction(agentSpec: string, flags: RunFlags): Promise<void> {
  const resolved = await resolveAgent(agentSpec);
  const input = await readInput(flags.input, resolved.defaultInput);
  const journal = flags.journal ? await readJournal(flags.journal) : [];
  const model = chooseModel(resolved, flags.model, flags.record);
  if (flags.effects !== undefined && flags.effects !== 'inline' && flags.effects !== 'suspend') {
    throw new CliError(`--effects must be inline or suspend, got ${flags.effects}`, 2);
  }
  let step: PassResult;
  try {
    const { programEvaluator } = await import('../../sandbox/index.ts');
    step = await runNavigator(resolved.agent, {
      input,
      journal,
      model,
      evaluate: programEvaluator(),
      ...(flags.runId ? { runId: flags.runId } : {}),
      ...(flags.effects ? { effects: flags.effects as 'inline' | 'suspend' } : {}),
    });
  } catch (e) {
    if (e instanceof InputError) throw new CliError(e.message, 2);
    throw e;
  }
  if (flags.journal) {
    await mkdir(dirname(flags.journal), { recursive: true });
    await writeFile(flags.journal, `${JSON.stringify(journalObject(step.journal), null, 2)}\n`);
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(step)}\n`);
  else process.stdout.write(describeStep(resolved.agent, step, flags.journal));
  process.exitCode = step.status === 'fail' ? 1 : step.status === 'error' ? 2 : 0;
}

/** The human-readable report of one pass. */
export function describeStep(agent: Agent, step: PassResult, journalFile?: string): string {
  const lines: string[] = [];
  const { usage } = step;
  lines.push(
    `${agent.name}: ${step.status} after ${usage.turns} ${usage.turns === 1 ? 'turn' : 'turns'} (${usage.inputTokens + usage.outputTokens} tokens)`,
  );
  if (step.status === 'error' && step.error) {
    const at = step.error.line ? ` (line ${step.error.line}, column ${step.error.column})` : '';
    lines.push(`error: ${step.error.type}: ${step.error.message}${at}`);
    if (step.error.hint) lines.push(`hint: ${step.error.hint}`);
  } else {
    lines.push(`value: ${JSON.stringify(step.value)}`);
  }
  if (step.status === 'waiting') {
    const v = step.value as { decision?: unknown } | null;
    const key = typeof v?.decision === 'string' ? v.decision : 'the decision';
    lines.push(
      journalFile
        ? `waiting for ${key}: write it into ${journalFile} (e.g. "${key}": "approved") and run again`
        : `waiting for ${key}: run with --journal FILE, write the decision into it and run again`,
    );
  }
  for (const [k, v] of step.journalDelta) lines.push(`committed ${k}: ${JSON.stringify(v)}`);
  for (const k of step.resets) lines.push(`reset ${k}`);
  for (const c of step.toolCalls)
    lines.push(`tool ${c.tool}${c.taskId ? ` in task ${c.taskId}` : ''}${c.error ? ` failed: ${c.error}` : ''}`);
  for (const w of step.warnings) lines.push(`warning ${w.code}: ${w.message}`);
  return `${lines.join('\n')}\n`;
}

const runCommand = new Command('run')
  .description('run one pass of an agent in-process (library mode, no Temporal)')
  .argument('<agent>', 'example name (wire-transfer) or module path whose default export is an agent')
  .option('--input <json>', 'agent input as JSON, or @FILE (default: the example input, else {})')
  .option('--journal <file>', 'journal JSON file, read before and written back after the pass')
  .option('--model <model>', "model string (openai:..., anthropic:..., scripted:FILE); default: the agent's")
  .option('--run-id <id>', 'run id mixed into idempotency keys (default: from agent name and input)')
  .option(
    '--effects <mode>',
    'inline (default) or suspend: run external tools between program runs, as the worker does',
  )
  .option(
    '--record <file>',
    "record the model's answers to FILE (scripted-model format) for offline replay with --model scripted:FILE",
  )
  .option(
    '--json',
    'print the pass result (status, value, journal, summaries, trace, usage, warnings) as one JSON object',
  )
  .action(action(runAction));

export const agentCommand = new Command('agent')
  .description('run agents in-process (library mode)')
  .addCommand(runCommand);
