/**
 * `navigator eval`: run one PTC-Lisp program with no model and no Temporal.
 * Exit codes: 0 value, 1 `(fail v)`, 2 error.
 */
import { Command } from 'commander';
import { z } from 'zod';
import type { Journal, RunResult } from '../../lisp/api.ts';
import { toJson } from '../../lisp/json.ts';
import { prStr } from '../../lisp/printer/index.ts';
import { PtcError } from '../../lisp/errors.ts';
import type { Json, ToolDef } from '../../lisp/tools.ts';
import { CliError, action } from '../errors.ts';
import { importModule, parsePositiveInt, readJsonFile, readText } from '../input.ts';

const JsonObject = z.record(z.string(), z.unknown());

const ToolList = z.array(
  z
    .object({
      name: z.string().min(1),
      description: z.string(),
      input: z.custom<z.ZodType>((v) => v instanceof z.ZodType, 'input must be a zod schema'),
      handler: z.function(),
    })
    .passthrough(),
);

interface EvalFlags {
  journal?: string;
  context?: string;
  tools?: string;
  fuel?: string;
  timeoutMs?: string;
  time?: boolean;
  json?: boolean;
}

export const evalCommand = new Command('eval')
  .description('run one PTC-Lisp program (no model, no Temporal)')
  .argument('[file]', 'program file, or - for stdin', '-')
  .option('--journal <file>', 'journal JSON object (task id → value); tasks in it are cache hits')
  .option('--context <file>', 'JSON object readable as data/ keys')
  .option('--tools <module>', 'JS/TS module whose default export is an array of tool definitions')
  .option('--fuel <n>', 'evaluation step limit')
  .option('--timeout-ms <n>', 'wall-clock limit for the program')
  .option('--time', 'print eval_ms on stderr')
  .option('--json', 'print one JSON object with the whole result')
  .action(action(evalAction));

async function evalAction(file: string, flags: EvalFlags): Promise<void> {
  const source = await readText(file);
  const journal = flags.journal ? await loadJournal(flags.journal) : null;
  const context = flags.context ? parseObject(await readJsonFile(flags.context, 'context'), 'context') : {};
  const tools = flags.tools ? await loadTools(flags.tools) : [];
  const limits = {
    ...(flags.fuel ? { fuel: parsePositiveInt(flags.fuel, '--fuel') } : {}),
    ...(flags.timeoutMs ? { timeoutMs: parsePositiveInt(flags.timeoutMs, '--timeout-ms') } : {}),
  };
  const started = performance.now();
  const { programEvaluator } = await import('../../sandbox/index.ts');
  const result = await programEvaluator()(source, { journal, context, tools, limits });
  const printed = printValue(result);
  const elapsed = performance.now() - started;
  if (flags.time) process.stderr.write(`eval_ms ${elapsed.toFixed(3)}\n`);
  if (flags.json) {
    process.stdout.write(JSON.stringify(jsonReport(result, printed)) + '\n');
  } else {
    reportPlain(result, printed);
  }
  process.exitCode = exitCodeOf(result);
}

async function loadJournal(file: string): Promise<Journal> {
  const obj = parseObject(await readJsonFile(file, 'journal'), 'journal');
  return new Map(Object.entries(obj) as Array<[string, Json]>);
}

function parseObject(value: unknown, what: string): Record<string, unknown> {
  const parsed = JsonObject.safeParse(value);
  if (!parsed.success || Array.isArray(value)) throw new CliError(`${what} must be a JSON object`, 2);
  return parsed.data;
}

async function loadTools(spec: string): Promise<ToolDef[]> {
  const mod = await importModule(spec);
  const parsed = ToolList.safeParse(mod.default);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(
      `--tools ${spec}: default export must be an array of tool definitions (${issue.path.join('.')}: ${issue.message})`,
      2,
    );
  }
  return parsed.data as unknown as ToolDef[];
}

/** The value's `pr-str`; a value too big to print (built by doubling) is a limit_exceeded error. */
function printValue(result: RunResult): string | null {
  if (result.status !== 'ok' && result.status !== 'fail') return null;
  try {
    return prStr(result.value);
  } catch (err) {
    if (err instanceof PtcError) throw new CliError(`${err.code}: ${err.message}`, 2);
    throw err;
  }
}

function exitCodeOf(result: RunResult): number {
  switch (result.status) {
    case 'ok':
      return 0;
    case 'fail':
      return 1;
    default:
      return 2;
  }
}

function reportPlain(result: RunResult, printed: string | null): void {
  for (const line of result.prints) process.stdout.write(line + '\n');
  for (const w of result.warnings) process.stderr.write(`warning: ${w.code}: ${w.message}\n`);
  switch (result.status) {
    case 'ok':
      process.stdout.write(printed + '\n');
      return;
    case 'fail':
      process.stderr.write(`fail: ${printed}\n`);
      return;
    case 'error':
      process.stderr.write(result.error.toLine() + '\n');
      return;
    case 'suspended':
      process.stderr.write(`suspended: waiting for ${result.effects.map((e) => e.tool).join(', ')}\n`);
  }
}

function jsonReport(result: RunResult, printed: string | null) {
  return {
    status: result.status,
    printed,
    value: 'value' in result ? safeJson(result.value) : null,
    journal: result.journal ? Object.fromEntries(result.journal) : null,
    summaries: Object.fromEntries(result.summaries),
    prints: result.prints,
    error: result.status === 'error' ? result.error.toJSON() : null,
    warnings: result.warnings,
    ...(result.status === 'suspended' ? { effects: result.effects } : {}),
  };
}

/** The JSON of a value, or null when it has none (functions, NaN). */
function safeJson(v: Parameters<typeof toJson>[0]): Json {
  try {
    return toJson(v);
  } catch {
    return null;
  }
}
