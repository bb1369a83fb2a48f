/**
 * The 30 tasks of ptc_runner's LLM benchmark (v0.10.1; shared/oracles/ptc-runner/benchmark-tasks.md)
 * as evaluation cases: the query verbatim, the expected type (`expect` or the task's own
 * signature) as the agent's output schema, the reference's turn budget, its tools
 * (search, fetch) and its check (type, then the constraint). Plan tasks (25-30) list
 * their steps in the mission text, as the reference gives them to the model.
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/navigator/index.ts';
import type { Agent } from '../../src/navigator/index.ts';
import type { Json } from '../../src/lisp/tools.ts';
import { type EvalCase, type Effect, fail, pass, type Verdict } from '../case.ts';
import { DATA_DESCRIPTIONS, employees, expenses, fetchDoc, orders, products, search } from './data.ts';

type Expect = 'integer' | 'number' | 'string' | 'list' | 'map';
type Constraint =
  | { eq: Json }
  | { gt: number }
  | { between: [number, number] }
  | { length: number }
  | { gt_length: number }
  | { starts_with: string }
  | { has_keys: string[] };

export interface BenchmarkTask {
  n: number;
  query: string;
  expect: Expect;
  /** the task's own signature, when it has one (else the one `expect` gives) */
  output?: z.ZodType;
  constraint: Constraint;
  turns: number;
  tools?: Array<'search' | 'fetch'>;
  plan?: string[];
}

const OUTPUTS: Record<Expect, z.ZodType> = {
  integer: z.number().int(),
  number: z.number(),
  string: z.string(),
  list: z.array(z.any()),
  map: z.record(z.string(), z.any()),
};

const map = (keys: string[]) => ({ has_keys: keys });

/** The tasks, numbered as in the reference's v0.10.1 table. */
export const TASKS: BenchmarkTask[] = [
  { n: 1, query: 'How many products are there?', expect: 'integer', constraint: { eq: 500 }, turns: 1 },
  {
    n: 2,
    query: "How many orders have status 'delivered'?",
    expect: 'integer',
    constraint: { between: [1, 999] },
    turns: 1,
  },
  {
    n: 3,
    query: 'What is the total revenue from all orders? (sum the total field)',
    expect: 'number',
    constraint: { gt: 1000 },
    turns: 1,
  },
  { n: 4, query: 'What is the average product rating?', expect: 'number', constraint: { between: [1, 5] }, turns: 1 },
  { n: 5, query: 'How many employees work remotely?', expect: 'integer', constraint: { between: [1, 199] }, turns: 1 },
  {
    n: 6,
    query: 'How many products cost more than $500?',
    expect: 'integer',
    constraint: { between: [0, 500] },
    turns: 1,
  },
  {
    n: 7,
    query: 'How many orders over $1000 were paid by credit card?',
    expect: 'integer',
    constraint: { between: [0, 1000] },
    turns: 1,
  },
  {
    n: 8,
    query: 'What is the name of the cheapest product?',
    expect: 'string',
    constraint: { starts_with: 'Product' },
    turns: 1,
  },
  {
    n: 9,
    query: 'Get the names of the 3 most expensive products',
    expect: 'list',
    constraint: { length: 3 },
    turns: 1,
  },
  {
    n: 10,
    query: 'How many orders are either cancelled or refunded?',
    expect: 'integer',
    constraint: { between: [0, 1000] },
    turns: 1,
  },
  {
    n: 11,
    query: 'What is the average salary of senior-level employees? Return only the numeric value.',
    expect: 'number',
    constraint: { between: [50_000, 200_000] },
    turns: 1,
  },
  {
    n: 12,
    query: 'How many unique products have been ordered? (count distinct product_id values in orders)',
    expect: 'integer',
    constraint: { between: [1, 500] },
    turns: 1,
  },
  {
    n: 13,
    query:
      'What is the total expense amount for employees in the engineering department? (Find engineering employee IDs, then sum expenses for those employees)',
    expect: 'number',
    constraint: { gt: 0 },
    turns: 1,
  },
  {
    n: 14,
    query:
      'Which expense category has the highest total spending? Return the top category with its stats as :highest, and all categories sorted by total descending as :breakdown. Each category should have :category, :total, :count, and :avg fields.',
    expect: 'map',
    output: z.object({ highest: z.record(z.string(), z.any()), breakdown: z.array(z.record(z.string(), z.any())) }),
    constraint: map(['highest', 'breakdown']),
    turns: 3,
  },
  {
    n: 15,
    query: 'Which employee has the most rejected expense claims? Return their employee_id.',
    expect: 'integer',
    constraint: { between: [1, 200] },
    turns: 3,
  },
  {
    n: 16,
    query:
      "Search for 'security' policies, then fetch the full content for ALL found documents in parallel. Return a list of the full content of these documents.",
    expect: 'list',
    constraint: { gt_length: 0 },
    turns: 2,
    tools: ['search', 'fetch'],
  },
  {
    n: 17,
    query:
      "Use the search tool to find the policy document that covers BOTH 'remote work' AND 'expense reimbursement'. Return the document title.",
    expect: 'string',
    constraint: { eq: 'Policy WFH-2024-REIMB' },
    turns: 6,
    tools: ['search'],
  },
  {
    n: 18,
    query:
      "Find the month with the highest order growth rate compared to the previous month. Orders have created_at dates in 'YYYY-MM-DD' format. Return :month (e.g. '2024-03'), :growth_rate (as decimal, e.g. 0.25 for 25%), and :order_counts with :previous and :current counts.",
    expect: 'map',
    output: z.object({
      month: z.string(),
      growth_rate: z.number(),
      order_counts: z.object({ previous: z.number().int(), current: z.number().int() }),
    }),
    constraint: map(['month', 'growth_rate', 'order_counts']),
    turns: 4,
  },
  {
    n: 19,
    query:
      "Select products to restock with a $50,000 budget, maximizing total expected revenue (price × stock as proxy for demand). Each product's cost is its price. Don't exceed budget. Use a greedy approach: sort by value ratio (expected_revenue / price = stock), then select products until budget is exhausted. Return :product_ids (selected IDs), :total_cost (sum of prices), and :expected_revenue (sum of price × stock for selected products).",
    expect: 'map',
    output: z.object({ product_ids: z.array(z.number().int()), total_cost: z.number(), expected_revenue: z.number() }),
    constraint: map(['product_ids', 'total_cost', 'expected_revenue']),
    turns: 5,
  },
  {
    n: 20,
    query:
      'Find the policy document about reimbursement for professional certifications. Search for relevant documents, then fetch the content of candidates to find the one specifically about certification reimbursement (not training budget). Return the document ID.',
    expect: 'string',
    constraint: { eq: 'DOC-020' },
    turns: 6,
    tools: ['search', 'fetch'],
  },
  {
    n: 21,
    query:
      "Search for documents about 'security', then search for documents about 'compliance'. Find which department has documents in BOTH categories. Return the department name.",
    expect: 'string',
    constraint: { eq: 'IT' },
    turns: 6,
    tools: ['search'],
  },
  {
    n: 22,
    query:
      "Search for policies about 'leave'. Multiple types will come back. Find the one specifically about sabbatical leave and return its title.",
    expect: 'string',
    constraint: { eq: 'Sabbatical Leave Program' },
    turns: 6,
    tools: ['search'],
  },
  {
    n: 23,
    query:
      "Fetch documents DOC-001 and DOC-002. Compare their content. Which one mentions 'ergonomics'? Return its document ID.",
    expect: 'string',
    constraint: { eq: 'DOC-002' },
    turns: 4,
    tools: ['fetch'],
  },
  {
    n: 24,
    query:
      'Find the department with the most rejected expense claims. You need to: 1) get all rejected expenses, 2) join with employees to get departments, 3) count per department. Return a map with :department and :count.',
    expect: 'map',
    output: z.object({ department: z.string(), count: z.number().int() }),
    constraint: map(['department', 'count']),
    turns: 4,
  },
  {
    n: 25,
    query:
      'Create a customer value report: calculate total spend per customer from orders, segment into tiers (Bronze <$1000, Silver <$5000, Gold >= $5000), return count per tier as a map with keys :bronze, :silver, :gold.',
    expect: 'map',
    constraint: map(['bronze', 'silver', 'gold']),
    turns: 6,
    plan: [
      'Aggregate total spend per customer_id from orders (sum the :total field)',
      'Segment customers into tiers: Bronze (<1000), Silver (<5000), Gold (>=5000)',
      'Count customers in each tier and return as a map with keys :bronze, :silver, :gold',
    ],
  },
  {
    n: 26,
    query:
      "Compare Q1 (Jan-Mar) vs Q2 (Apr-Jun) 2024 order totals. Orders have created_at dates in 'YYYY-MM-DD' format. Return a map with :q1_total, :q2_total, and :change_pct (percentage change as decimal).",
    expect: 'map',
    constraint: map(['q1_total', 'q2_total', 'change_pct']),
    turns: 6,
    plan: [
      'Sum the totals of orders created in January to March 2024',
      'Sum the totals of orders created in April to June 2024',
      'Compute the change from Q1 to Q2 as a decimal and return the map',
    ],
  },
  {
    n: 27,
    query:
      'Compare average expense amounts between remote and office employees. Join employees with expenses by employee_id, group by remote status, calculate average expense amount for each group. Return a map with :remote_avg, :office_avg, and :remote_higher (boolean).',
    expect: 'map',
    constraint: map(['remote_avg', 'office_avg', 'remote_higher']),
    turns: 6,
    plan: [
      'Join employees with expenses by employee_id',
      'Group the expenses by the remote status of their employee',
      'Average the amounts per group and return :remote_avg, :office_avg and :remote_higher',
    ],
  },
  {
    n: 28,
    query:
      "For each of the 6 departments (engineering, sales, marketing, support, hr, finance), calculate: headcount, average salary, and total approved expense amount (join employees→expenses by employee_id, filter status='approved'). Return a map keyed by department name, where each value is a map with :headcount, :avg_salary, and :total_approved_expenses.",
    expect: 'map',
    constraint: map(['engineering', 'sales', 'marketing', 'support', 'hr', 'finance']),
    turns: 16,
    plan: [
      ...['engineering', 'sales', 'marketing', 'support', 'hr', 'finance'].flatMap((d) => [
        `Headcount and average salary of ${d}`,
        `Total approved expenses of ${d} employees`,
      ]),
      'Return the map keyed by department',
    ],
  },
  {
    n: 29,
    query:
      'Find the top 3 product categories by total revenue from delivered orders, then for each category find how many distinct employees (from any department) have submitted approved expenses in the same month as those delivered orders. Steps: (1) filter delivered orders, (2) join with products to get categories, (3) aggregate revenue per category and pick top 3, (4) collect the months of delivered orders for those top 3 categories, (5) count distinct employees with approved expenses in those months. Return a list of maps with :category, :revenue, and :employee_count.',
    expect: 'list',
    constraint: { length: 3 },
    turns: 10,
    plan: [
      'Filter delivered orders',
      'Join them with products to get categories',
      'Aggregate revenue per category and pick the top 3',
      'Collect the months of the delivered orders of each top category',
      'Count distinct employees with approved expenses in those months',
      'Return the list of maps',
    ],
  },
  {
    n: 30,
    query:
      "Find ALL departments where remote senior-level employees (level is 'senior', 'lead', 'manager', or 'director') have an average salary above $120,000. Check each department independently. Return a map with :qualifying_departments (list of department names) and :department_details (map of department name → average salary for qualifying ones).",
    expect: 'map',
    constraint: map(['qualifying_departments', 'department_details']),
    turns: 10,
    plan: [
      'Select remote employees at senior level or above',
      ...['engineering', 'sales', 'marketing', 'support', 'hr', 'finance'].map(
        (d) => `Average salary of those in ${d}`,
      ),
    ],
  },
];

// ---------------------------------------------------------------- checks

function typeOk(expect: Expect, v: Json | null): boolean {
  if (expect === 'integer') return typeof v === 'number' && Number.isInteger(v);
  if (expect === 'number') return typeof v === 'number';
  if (expect === 'string') return typeof v === 'string';
  if (expect === 'list') return Array.isArray(v);
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The reference's validation: the value's type must match `expect`, then the constraint must hold. */
export function checkAnswer(task: Pick<BenchmarkTask, 'expect' | 'constraint'>, v: Json | null): Verdict {
  const shown = JSON.stringify(v)?.slice(0, 120);
  if (!typeOk(task.expect, v)) return fail(`expected ${task.expect}, got ${shown}`);
  const c = task.constraint;
  const ok =
    'eq' in c
      ? JSON.stringify(v) === JSON.stringify(c.eq)
      : 'gt' in c
        ? (v as number) > c.gt
        : 'between' in c
          ? (v as number) >= c.between[0] && (v as number) <= c.between[1]
          : 'length' in c
            ? (v as Json[]).length === c.length
            : 'gt_length' in c
              ? (v as Json[]).length > c.gt_length
              : 'starts_with' in c
                ? (v as string).startsWith(c.starts_with)
                : c.has_keys.every((k) => Object.hasOwn(v as object, k));
  return ok ? pass : fail(`${JSON.stringify(c)} does not hold for ${shown}`);
}

// ---------------------------------------------------------------- cases

const searchTool = defineTool({
  name: 'search',
  description:
    'Searches the 40 company policy documents: every lower-cased space-separated term of the query must occur in title, topics, content or department. Pages with :limit (default 10) and the :cursor of the previous page.',
  input: z.object({
    query: z.string(),
    limit: z.number().int().positive().optional(),
    cursor: z.string().nullable().optional(),
  }),
  output: z.object({
    results: z.array(
      z.object({ id: z.string(), title: z.string(), topics: z.array(z.string()), department: z.string() }),
    ),
    cursor: z.string().nullable(),
    has_more: z.boolean(),
    total: z.number().int(),
  }),
  sideEffect: 'read_only',
  handler: (args) => search(args),
});

const fetchTool = defineTool({
  name: 'fetch',
  description: 'The whole policy document with this id (DOC-001 .. DOC-040), or nil.',
  input: z.object({ id: z.string() }),
  output: z
    .object({
      id: z.string(),
      title: z.string(),
      topics: z.array(z.string()),
      department: z.string(),
      content: z.string(),
      updated_at: z.string(),
    })
    .nullable(),
  sideEffect: 'read_only',
  handler: (args) => fetchDoc(args),
});

const TOOLS = { search: searchTool, fetch: fetchTool };

export const caseName = (n: number): string => `bench-${String(n).padStart(2, '0')}`;

function missionText(t: BenchmarkTask): string {
  const steps = t.plan ? `\n\nPlan:\n${t.plan.map((s, i) => `${i + 1}. ${s}`).join('\n')}` : '';
  return `You are a data analyst answering questions about datasets.\n\nDatasets:\n${DATA_DESCRIPTIONS.map((d) => `- ${d}`).join('\n')}\n\nQuestion: {{question}}${steps}`;
}

export function benchmarkCase(t: BenchmarkTask): EvalCase {
  return {
    name: caseName(t.n),
    what: t.query,
    make() {
      const effects: Effect[] = [];
      const agent = defineAgent({
        name: caseName(t.n),
        prompt: missionText(t),
        input: z.object({
          question: z.string(),
          products: z.array(z.any()),
          orders: z.array(z.any()),
          employees: z.array(z.any()),
          expenses: z.array(z.any()),
        }),
        output: t.output ?? OUTPUTS[t.expect],
        tools: (t.tools ?? []).map((name) => TOOLS[name]),
        limits: { maxTurns: t.turns },
      });
      return {
        agent: agent as unknown as Agent,
        input: { question: t.query, products, orders, employees, expenses } as unknown as Record<string, Json>,
        effects,
      };
    },
    check: (o) =>
      o.result === null ? fail(`no answer: ${o.failure ?? 'the mission failed'}`) : checkAnswer(t, o.result),
  };
}

export const benchmarkCases: readonly EvalCase[] = TASKS.map(benchmarkCase);
