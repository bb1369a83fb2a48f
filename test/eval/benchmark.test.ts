/**
 * ptc_runner's LLM benchmark as an evaluation suite (eval/benchmark): the 30 tasks as the
 * reference states them, its checks, data of the described shape, its search tool, and
 * the suite run as real missions on the hand-written recorded answers.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TASKS, benchmarkCases, checkAnswer } from '../../eval/benchmark/index.ts';
import { CATEGORIES, DEPARTMENTS, employees, expenses, orders, products, search } from '../../eval/benchmark/data.ts';
import { summarize } from '../../eval/report.ts';
import { runSuite } from '../../eval/run.ts';

const SOURCE = '/work/shared/oracles/ptc-runner/benchmark-tasks.md';

describe('the benchmark tasks', () => {
  it('are the 30 tasks numbered 1..30, each a case', () => {
    expect(TASKS.map((t) => t.n)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(benchmarkCases.map((c) => c.name)).toContain('bench-30');
  });

  it.skipIf(!existsSync(SOURCE))('quote each query verbatim from the reference table', () => {
    const rows = new Map(
      readFileSync(SOURCE, 'utf8')
        .split('\n')
        .map((l) => /^\| (\d+) \| (.+?) \| .+ \| (\d+) \|$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [Number(m[1]), { query: m[2]!, turns: Number(m[3]) }]),
    );
    // the table cuts a few long rows; where it has the row, query and turns must be equal
    const compared = TASKS.filter((t) => rows.has(t.n));
    expect(compared.length).toBeGreaterThanOrEqual(25);
    for (const t of compared) expect({ n: t.n, ...rows.get(t.n) }).toEqual({ n: t.n, query: t.query, turns: t.turns });
  });
});

describe('the reference checks', () => {
  it.each([
    [{ expect: 'integer', constraint: { eq: 500 } }, 500, true],
    [{ expect: 'integer', constraint: { eq: 500 } }, 500.5, false],
    [{ expect: 'integer', constraint: { between: [1, 999] } }, 1000, false],
    [{ expect: 'number', constraint: { gt: 1000 } }, 1000, false],
    [{ expect: 'number', constraint: { gt: 1000 } }, 1000.01, true],
    [{ expect: 'string', constraint: { starts_with: 'Product' } }, 'Product 7', true],
    [{ expect: 'string', constraint: { starts_with: 'Product' } }, 7, false],
    [{ expect: 'list', constraint: { length: 3 } }, ['a', 'b'], false],
    [{ expect: 'list', constraint: { gt_length: 0 } }, [], false],
    [{ expect: 'map', constraint: { has_keys: ['a', 'b'] } }, { a: 1, b: null }, true],
    [{ expect: 'map', constraint: { has_keys: ['a', 'b'] } }, { a: 1 }, false],
    [{ expect: 'map', constraint: { has_keys: ['a'] } }, [1], false],
  ] as const)('%j with %j: %s', (task, value, ok) => {
    expect(checkAnswer(task as never, value as never).ok).toBe(ok);
  });
});

describe('the data and tools', () => {
  it('have the sizes, keys and ranges the reference describes', () => {
    expect([products.length, orders.length, employees.length, expenses.length]).toEqual([500, 1000, 200, 800]);
    expect(Object.keys(products[0]!)).toEqual([
      'id',
      'name',
      'category',
      'price',
      'stock',
      'rating',
      'status',
      'created_at',
    ]);
    expect(
      products.every(
        (p) => CATEGORIES.includes(p.category) && p.price >= 1 && p.price <= 1001 && p.rating >= 1 && p.rating <= 5,
      ),
    ).toBe(true);
    expect(
      orders.every((o) => /^2024-\d\d-\d\d$/.test(o.created_at) && o.customer_id <= 200 && o.product_id <= 500),
    ).toBe(true);
    expect(employees.every((e) => DEPARTMENTS.includes(e.department) && e.salary > 50_000 && e.salary <= 200_000)).toBe(
      true,
    );
    expect(expenses.every((x) => x.employee_id >= 1 && x.employee_id <= 200)).toBe(true);
  });

  it('search matches every term, and finds what tasks 17, 21 and 22 need', () => {
    expect(search({ query: 'remote work expense reimbursement' }).results.map((d) => d.title)).toEqual([
      'Policy WFH-2024-REIMB',
    ]);
    const depts = (q: string) => new Set(search({ query: q, limit: 40 }).results.map((d) => d.department));
    expect([...depts('security')].filter((d) => depts('compliance').has(d))).toEqual(['IT']);
    expect(search({ query: 'leave' }).results.map((d) => d.title)).toContain('Sabbatical Leave Program');
    const page = search({ query: 'a', limit: 10 });
    expect(page).toMatchObject({ has_more: true, cursor: '10' });
    expect(search({ query: 'a', limit: 10, cursor: page.cursor }).results[0]!.id).not.toBe(page.results[0]!.id);
  });
});

describe('the suite on the recorded answers', () => {
  it('runs every task as an audited mission and reports success rate and calls per task', async () => {
    const results = await runSuite({ suite: 'benchmark' });
    expect(results.filter((r) => !r.correct).map((r) => `${r.case}: ${r.why}`)).toEqual([]);
    expect(results.every((r) => r.audit)).toBe(true);
    expect(summarize(results)).toMatchObject({ runs: 30, successRate: 1, meanModelCalls: 1 });
  }, 600_000);

  it('catches a wrong answer (the decoy of task 20)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-wrong-'));
    const file = join(dir, 'bench-20.json');
    writeFileSync(
      file,
      JSON.stringify(['```clojure\n(return (:id (first (:results (tool/search {:query "certification"})))))\n```']),
    );
    const [r] = await runSuite({ suite: 'benchmark', only: ['bench-20'], recordingFor: () => file });
    expect(r!.correct).toBe(false);
    expect(r!.why).toMatch(/DOC-020.*"DOC-018"/);
  }, 120_000);
});
