/**
 * The planner's prompt and the parsing of its answer. The request, a context snapshot,
 * the tools (JSON arg types, side-effect class, destructive), the agents a step may run,
 * the rules of a good plan and the exact answer format; on a regeneration also the
 * current plan and the reviewer's feedback, on a retry the problems of the last answer.
 */
import type { NavigatorTool } from '../navigator/tool.ts';
import { extractJson } from './answer-json.ts';
import { type Json, PlanDocument, type PlanProblem } from './schema.ts';
import { type AgentInfo, agentText, toolText } from './tool-text.ts';
import { issuesText } from '../kernel/contract.ts';

export interface PlannerAsk {
  request: string;
  context?: Json;
  tools: NavigatorTool[];
  /** agents a step may run (not the plan's own agent, unless the request names it) */
  agents?: AgentInfo[];
  /** regeneration: what the reviewer wants changed, and the plan they saw */
  feedback?: string;
  currentPlan?: Json;
  /** the previous answer was invalid: what was wrong with it */
  problems?: ReadonlyArray<Pick<PlanProblem, 'stepId' | 'path' | 'message'>>;
}

/** Longest context snapshot shown to the planner, in characters. */
export const CONTEXT_LIMIT = 8000;

const SYSTEM = `You are a planner. You turn a request into a plan: a list of steps that a program executes for you.

Rules:
- Each step uses exactly one tool, with its args as a JSON object matching the tool's args type (a key written "key"? is optional). A step may instead run one of the agents listed (a whole task given to another agent, "input" matching its input type) or ask a person a question (below).
- Steps name the steps they need in "dependsOn" (by id). Steps without a dependency between them run in parallel, so only add the dependencies that are real.
- To use a previous step's result in args, write the string "$step_id" (the whole result) or "$step_id.field.0.key" (a path into it, object keys and array indices); the referenced step must be in dependsOn (directly or through other steps). A reference is a whole string value: it is not replaced inside a longer string. To build a value from results (new file content, a message), compute it (below). Write "$$" for a literal "$" at the start of a string.
- Steps using a destructive or external tool wait for a person's approval before they run (requiresApproval defaults to true for them); add "requiresApproval": true to any other step that changes something important.
- After a change, add a step that verifies it.
- Mark a step "critical": false when the plan can succeed without it.
- Step ids are short snake_case names without dots, unique in the plan.

Computing and deciding: expressions are PTC-Lisp (Clojure-like: (str "a" x), (str/replace s "old" "new"), (:key m), (get-in m [:a 0 :b]), (count xs), (filter f xs), (map f xs), (= a b), (zero? n), (empty? xs), (and ...), (if c a b)). In an expression, step/ID is the result of step ID (a keyword reads a field: (:content step/read_pkg)); that step must be in dependsOn, as for "$ref".
- Computed args: {"$expr": "<expression>"} anywhere in args, e.g. new content from a file a step read:
  "args": {"path": "package.json", "content": {"$expr": "(str/replace (:content step/read_pkg) \\"1.4.2\\" \\"1.5.0\\")"}}
- Conditions: "when": "<expression>" runs the step only when it is true (not nil or false); otherwise the step is skipped, and steps that use its result are blocked. E.g. a tag only when the tests passed: "when": "(zero? (:failed step/run_tests))".
- For each: "forEach": "<expression giving a list>" runs a tool step once per item, item bound in its args' expressions: {"forEach": "(:files step/list)", "args": {"path": {"$expr": "item"}}}. Its result is the list of results. "maxItems" caps the list (default 100).
- Compute steps: {"id": "totals", "description": "...", "compute": "<expression>", "dependsOn": [...]} runs no tool: its result (step/totals, "$totals") is the expression's value. Use one to compute a value several steps use, or a list for a forEach or a question.
- Questions: a step {"id": "pick", "description": "...", "ask": {"question": "Deploy to staging or prod?", "schema": {"enum": ["staging", "prod"]}}, "dependsOn": [...]} waits for a person's answer (JSON matching the JSON Schema), which is its result (step/pick). Ask only what the request leaves for a person to decide. The question and any part of its schema may be computed from the steps it depends on: "ask": {"question": {"$expr": "(str \\"Deploy where? \\" (count step/regions) \\" regions have room\\")"}, "schema": {"enum": {"$expr": "(mapv :region (filter #(pos? (:free step/regions)) step/regions))"}}}.
- What an expression can use: step/ID (results of steps in dependsOn), param/NAME, item (in a forEach step's args), and the core functions: (let [...] ...), if, when, cond, fn and #(...), map, mapv, filter, filterv, remove, keep, mapcat, some, every?, reduce, into, sort-by, group-by, frequencies, first, last, count, empty?, sum, sum-by, avg, max-by, min-by, distinct, get, get-in, assoc, assoc-in, update, dissoc, merge, select-keys, keys, vals, str, format (printf-style: %s, %d, %.2f, %+.1f), str/join, str/split, str/replace, str/upper-case, str/lower-case, subs, parse-long, parse-double, round, floor, ceil, abs, +, -, *, /, quot, mod, inc, dec, pos?, neg?, zero?, comparisons, and, or, not. A tool's result keeps its object keys as strings: (:price item) reads "price", but (assoc item :price 2) adds a second key next to it, which the plan refuses; change a field with (update item :price f) or (assoc item "price" 2), or build a new map {:sku (:sku item) :price ...}. Dates are ISO strings: date/days-between, date/plus-days, date/minus-days, date/plus-months, date/before?, date/after?, date/compare, date/format (e.g. (date/format d "yyyy-MM")), date/year, date/month, date/day, date/day-of-week. (round x) gives a whole number; to cents: (/ (round (* x 100)) 100). The tools' results are described below (field meanings under each result).
- Parameters: a plan template declares "params": {"version": {"type": "string"}} and reads them as param/version or {"$param": "version"}; values are given when a template starts. A plan written here gets no parameter values: write the values from the request into the plan.

Answer with one JSON object and nothing else (a \`\`\`json block is fine):
{"steps": [{"id": "...", "description": "...", "tool": "...", "args": {...}, "dependsOn": []}], "estimatedDuration": seconds}
A step may also carry "requiresApproval": true, "critical": false, "when", "forEach" and "maxItems"; a compute step has "compute" instead of "tool" and "args", a question "ask".`;

const TOOLS_HEADER =
  'Tools, each with its side effect (read_only: changes nothing; local/memory: changes files or memory here; external: reaches other systems, cannot be taken back) and "destructive" when it overwrites or deletes:';

export function plannerPrompt(ask: PlannerAsk): { system: string; messages: Array<{ role: 'user'; content: string }> } {
  const parts = [`Request: ${ask.request}`];
  if (ask.context !== undefined) parts.push(`Context:\n${contextText(ask.context)}`);
  parts.push(`${TOOLS_HEADER}\n${ask.tools.map(toolText).join('\n') || '(none)'}`);
  if (ask.agents?.length) {
    parts.push(
      `Agents (a step may run one instead of a tool: {"id", "description", "agent": NAME, "input": {...}, "dependsOn"}; "input" matches the agent's input type, its description is given to the agent, its result is the agent's result):\n` +
        ask.agents.map(agentText).join('\n'),
    );
  }
  if (ask.currentPlan !== undefined) parts.push(`Current plan:\n${JSON.stringify(ask.currentPlan, null, 2)}`);
  if (ask.feedback !== undefined)
    parts.push(`The reviewer's feedback on the current plan:\n${ask.feedback}\n\nWrite the whole revised plan.`);
  if (ask.problems?.length) {
    const lines = ask.problems.map((p) => `- ${p.stepId ?? 'plan'}${p.path ? ` ${p.path}` : ''}: ${p.message}`);
    parts.push(`Your previous answer could not be used:\n${lines.join('\n')}\n\nWrite the whole corrected plan.`);
  }
  return { system: SYSTEM, messages: [{ role: 'user', content: parts.join('\n\n') }] };
}

function contextText(context: Json): string {
  const text = JSON.stringify(context, null, 2);
  if (text.length <= CONTEXT_LIMIT) return text;
  return `${text.slice(0, CONTEXT_LIMIT)}\n... (cut: ${text.length - CONTEXT_LIMIT} more characters)`;
}

export type ParsedPlan = { ok: true; document: PlanDocument } | { ok: false; message: string };

/** The plan document in the planner's answer (steps are validated later, against the tools). */
export function parsePlanAnswer(text: string): ParsedPlan {
  const json = extractJson(text);
  if (!json.ok) return json;
  const parsed = PlanDocument.safeParse(json.value);
  if (parsed.success) return { ok: true, document: parsed.data };
  return { ok: false, message: issuesText(parsed.error, 'answer') };
}
