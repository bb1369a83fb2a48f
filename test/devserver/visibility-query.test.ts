import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  matchesVisibilityQuery,
  parseVisibilityQuery,
  sortRecords,
  textTokens,
  validateVisibilityQuery,
  VisibilityQueryError,
  type SearchAttributeType,
  type VisibilityRecord,
} from '../../src/devserver/visibility-query.ts';

const T = (iso: string) => Date.parse(iso);

const TYPES: Record<string, SearchAttributeType> = {
  CustomKeyword: 'Keyword',
  CustomText: 'Text',
  CustomInt: 'Int',
  CustomDouble: 'Double',
  CustomBool: 'Bool',
  CustomDatetime: 'Datetime',
  Tags: 'KeywordList',
  'my-attr': 'Keyword',
  Order: 'Int',
};

function rec(over: Partial<VisibilityRecord> = {}): VisibilityRecord {
  return {
    workflowId: 'order-1234',
    runId: 'run-a',
    workflowType: 'main.ProcessOrder',
    status: 'Running',
    startTime: T('2021-08-22T15:04:05Z'),
    taskQueue: 'orders',
    searchAttributes: {},
    ...over,
  };
}

const running = rec();
const completed = rec({
  workflowId: 'payment-77',
  runId: 'run-b',
  workflowType: 'main.Pay',
  status: 'Completed',
  startTime: T('2021-08-23T10:00:00Z'),
  closeTime: T('2021-08-23T10:05:00Z'),
  executionTime: T('2021-08-23T10:00:00Z'),
  taskQueue: 'payments',
  searchAttributes: {
    CustomKeyword: 'gold',
    CustomText: 'my-business-id-foobar',
    CustomInt: 42,
    CustomDouble: 2.5,
    CustomBool: true,
    CustomDatetime: '2022-01-01T00:00:00Z',
    Tags: ['red', 'blue'],
    'my-attr': 'x',
    Order: 7,
  },
});

const match = (query: string, r: VisibilityRecord) => matchesVisibilityQuery(parseVisibilityQuery(query), r, TYPES);

describe('parseVisibilityQuery', () => {
  it('empty and blank queries match everything', () => {
    for (const q of ['', '   ', '\n\t']) {
      const parsed = parseVisibilityQuery(q);
      expect(parsed.filter).toBeNull();
      expect(parsed.orderBy).toEqual([]);
      expect(matchesVisibilityQuery(parsed, running)).toBe(true);
    }
  });

  it.each([
    ["WorkflowId = 'a'", { kind: 'compare', op: '=' }],
    ['WorkflowId = "a"', { kind: 'compare', op: '=' }],
    ["WorkflowId <> 'a'", { kind: 'compare', op: '!=' }],
    ["WorkflowId STARTS_WITH 'a'", { kind: 'startsWith', negated: false }],
    ["WorkflowId not starts_with 'a'", { kind: 'startsWith', negated: true }],
    ["WorkflowId IN ('a', 'b')", { kind: 'in', negated: false }],
    ["WorkflowId NOT IN ('a')", { kind: 'in', negated: true }],
    ["StartTime BETWEEN '2021-01-01T00:00:00Z' AND '2022-01-01T00:00:00Z'", { kind: 'between', negated: false }],
    ['CloseTime IS NULL', { kind: 'isNull', negated: false }],
    ['CloseTime is not null', { kind: 'isNull', negated: true }],
    ["WorkflowId = 'a' AND RunId = 'b'", { kind: 'and' }],
    ["WorkflowId = 'a' or RunId = 'b'", { kind: 'or' }],
    ["NOT WorkflowId = 'a'", { kind: 'not' }],
    ["(WorkflowId = 'a')", { kind: 'compare' }],
  ])('parses %s', (q, shape) => {
    expect(parseVisibilityQuery(q).filter).toMatchObject(shape);
  });

  it('AND binds tighter than OR', () => {
    const q = parseVisibilityQuery("WorkflowId = 'a' OR WorkflowId = 'b' AND RunId = 'c'");
    expect(q.filter).toMatchObject({
      kind: 'or',
      operands: [{ kind: 'compare' }, { kind: 'and', operands: [{ kind: 'compare' }, { kind: 'compare' }] }],
    });
    const p = parseVisibilityQuery("(WorkflowId = 'a' OR WorkflowId = 'b') AND RunId = 'c'");
    expect(p.filter).toMatchObject({ kind: 'and', operands: [{ kind: 'or' }, { kind: 'compare' }] });
  });

  it('parses literals: quotes, escapes, numbers, booleans', () => {
    const values = (q: string) => {
      const f = parseVisibilityQuery(q).filter;
      return f && f.kind === 'in' ? f.values.map((v) => v.value) : undefined;
    };
    expect(values(String.raw`CustomKeyword IN ('it''s', "say \"hi\"", 'a\\b', '', -3, 1.5, 2e3, true, FALSE)`)).toEqual(
      ["it's", 'say "hi"', 'a\\b', '', -3, 1.5, 2000, true, false],
    );
  });

  it('parses back-quoted names and keeps names case-sensitive', () => {
    const q = parseVisibilityQuery("`my-attr` = 'x' AND `Order` = 7");
    expect(q.filter).toMatchObject({
      kind: 'and',
      operands: [{ field: { name: 'my-attr' } }, { field: { name: 'Order' } }],
    });
  });

  it('parses ORDER BY with and without a filter', () => {
    expect(parseVisibilityQuery('ORDER BY StartTime').orderBy).toMatchObject([
      { field: { name: 'StartTime' }, direction: 'ASC' },
    ]);
    const q = parseVisibilityQuery("WorkflowType = 'x' order by CloseTime desc, WorkflowId asc");
    expect(q.filter).toMatchObject({ kind: 'compare' });
    expect(q.orderBy.map((o) => [o.field.name, o.direction])).toEqual([
      ['CloseTime', 'DESC'],
      ['WorkflowId', 'ASC'],
    ]);
  });

  it('records positions of fields and values', () => {
    const q = parseVisibilityQuery("  WorkflowId = 'a'");
    expect(q.filter).toMatchObject({ field: { position: 2 }, value: { position: 15 } });
  });
});

describe('syntax errors', () => {
  it.each([
    ["WorkflowId = 'abc", /unterminated string literal starting with ' at position 13/],
    ['WorkflowId = "abc', /unterminated string literal starting with " at position 13/],
    ["`WorkflowId = 'a'", /unterminated back-quoted name at position 0/],
    ["WorkflowId == 'a'", /unknown operator '==' at position 11/],
    ["WorkflowId =< 'a'", /unknown operator '=<' at position 11/],
    ["WorkflowId LIKE 'a%'", /unknown operator 'LIKE' at position 11/],
    ["WorkflowId ~ 'a'", /unexpected character '~' at position 11/],
    ["WorkflowId = 'a' AND", /expected a field name or '\(' but found end of query after 'AND' at position 20/],
    ["WorkflowId = 'a' OR ", /expected a field name or '\(' but found end of query after 'OR' at position 20/],
    ["AND WorkflowId = 'a'", /expected a field name or '\(' but found 'AND' at position 0/],
    ["WorkflowId = 'a' AND AND RunId = 'b'", /found 'AND' at position 21/],
    ["(WorkflowId = 'a'", /expected '\)' to close '\(' at position 0 but found end of query/],
    ["WorkflowId = 'a')", /unbalanced '\)' at position 16/],
    ['()', /expected a field name or '\(' but found '\)' at position 1/],
    ['WorkflowId', /expected an operator after field 'WorkflowId' but found end of query/],
    ['WorkflowId =', /expected a value \(string, number, true or false\) but found end of query after '='/],
    ["WorkflowId = 'a' RunId = 'b'", /expected AND, OR, ORDER BY or end of query but found 'RunId' at position 17/],
    ["WorkflowId IN 'a'", /expected '\(' after IN but found string 'a'/],
    ['WorkflowId IN ()', /expected a value .* but found '\)'/],
    ["WorkflowId IN ('a' 'b')", /expected ',' or '\)' in IN list but found string 'b'/],
    ["WorkflowId BETWEEN 'a' OR 'b'", /expected AND but found 'OR'/],
    ['CloseTime IS NOT', /expected NULL but found end of query/],
    ["WorkflowId NOT = 'a'", /expected STARTS_WITH, IN or BETWEEN after NOT but found '='/],
    ['ORDER StartTime', /expected BY but found 'StartTime'/],
    ['ORDER BY', /expected a field name but found end of query/],
    ['ORDER BY StartTime DESC StartTime', /expected ',' or end of query but found 'StartTime'/],
    ['WorkflowId = 12abc', /malformed number '12abc'/],
    ['Order = 1', /expected BY but found '=' at position 6/], // keywords as names need backticks
  ])('%s', (q, message) => {
    let err: unknown;
    try {
      parseVisibilityQuery(q);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(VisibilityQueryError);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(message);
  });

  it('exposes the position on the error', () => {
    try {
      parseVisibilityQuery("WorkflowId = 'a' AND");
      expect.unreachable();
    } catch (e) {
      expect((e as VisibilityQueryError).position).toBe(20);
      expect((e as VisibilityQueryError).name).toBe('VisibilityQueryError');
    }
  });
});

describe('semantic errors', () => {
  it.each([
    ["Foo = 'x'", /unknown search attribute 'Foo' at position 0/],
    ["WorkflowId = 'a' AND `Bar Baz` = 1", /unknown search attribute 'Bar Baz' at position 21/],
    ["workflowid = 'a'", /unknown search attribute 'workflowid'/],
    ['ORDER BY Nope', /unknown search attribute 'Nope'/],
    ["StartTime > 'yesterday'", /invalid value "yesterday" for Datetime field 'StartTime': expected an RFC3339/],
    ["StartTime > '2021-08-22'", /expected an RFC3339/],
    ["StartTime > '2021-08-22T15:04:05'", /expected an RFC3339/], // no zone
    ["StartTime > '2021-02-30T15:04:05Z'", /expected an RFC3339/],
    ['StartTime > 5', /invalid value 5 for Datetime field/],
    [
      "ExecutionStatus = 'Runing'",
      /invalid value "Runing" for Status field 'ExecutionStatus': expected one of Running, Completed/,
    ],
    ["ExecutionStatus > 'Running'", /operator > is not supported for Status field 'ExecutionStatus'/],
    ['WorkflowId = 5', /invalid value 5 for Keyword field 'WorkflowId': expected a quoted string/],
    ["CustomInt = 'abc'", /expected a number/],
    ['CustomInt = 1.5', /expected an integer/],
    ['CustomBool = 1', /expected true or false/],
    ['CustomBool > true', /operator > is not supported for Bool field 'CustomBool'/],
    ["CustomText STARTS_WITH 'a'", /operator STARTS_WITH is not supported for Text field 'CustomText'/],
    ["CustomText > 'a'", /operator > is not supported for Text field/],
    ["Tags BETWEEN 'a' AND 'b'", /operator BETWEEN is not supported for KeywordList field 'Tags'/],
    ["Tags NOT STARTS_WITH 'a'", /operator NOT STARTS_WITH is not supported for KeywordList field/],
    ['CustomInt STARTS_WITH 1', /operator STARTS_WITH is not supported for Int field/],
    ['ORDER BY CustomText', /cannot ORDER BY Text field 'CustomText'/],
  ])('%s', (q, message) => {
    expect(() => validateVisibilityQuery(parseVisibilityQuery(q), TYPES)).toThrow(VisibilityQueryError);
    expect(() => validateVisibilityQuery(parseVisibilityQuery(q), TYPES)).toThrow(message);
  });

  it('reports built-in field errors at parse time, custom ones once types are known', () => {
    expect(() => parseVisibilityQuery("StartTime > 'nope'")).toThrow(/RFC3339/);
    const q = parseVisibilityQuery("Foo = 'x'");
    expect(() => matchesVisibilityQuery(q, running)).toThrow(/unknown search attribute 'Foo'/);
    expect(() => matchesVisibilityQuery(q, running, {})).toThrow(/unknown search attribute 'Foo'/);
    expect(() => parseVisibilityQuery("Foo = 'x'", {})).toThrow(/unknown search attribute 'Foo'/);
    expect(matchesVisibilityQuery(q, rec({ searchAttributes: { Foo: 'x' } }), { Foo: 'Keyword' })).toBe(true);
  });
});

describe('matchesVisibilityQuery', () => {
  it.each<[string, boolean, boolean]>([
    // [query, matches running, matches completed]
    ['', true, true],
    ["WorkflowId = 'order-1234'", true, false],
    ["WorkflowId != 'order-1234'", false, true],
    ["WorkflowId STARTS_WITH 'order-'", true, false],
    ["WorkflowId NOT STARTS_WITH 'order-'", false, true],
    ["WorkflowId BETWEEN 'order-' AND 'order-~'", true, false],
    ["WorkflowId > 'p'", false, true],
    ["WorkflowId IN ('payment-77', 'zzz')", false, true],
    ["WorkflowId NOT IN ('payment-77', 'zzz')", true, false],
    ["RunId = 'run-b'", false, true],
    ["WorkflowType = 'main.ProcessOrder'", true, false],
    ["WorkflowType STARTS_WITH 'main.'", true, true],
    ["TaskQueue = 'payments'", false, true],
    ["ExecutionStatus = 'Running'", true, false],
    ["ExecutionStatus = 'running'", true, false],
    ["ExecutionStatus = 'WORKFLOW_EXECUTION_STATUS_COMPLETED'", false, true],
    ["ExecutionStatus != 'Running'", false, true],
    ["ExecutionStatus IN ('Failed', 'Completed')", false, true],
    // datetimes compare as instants, whatever the offset
    ["StartTime > '2021-08-22T15:04:04Z'", true, true],
    ["StartTime > '2021-08-22T15:04:05Z'", false, true],
    ["StartTime >= '2021-08-22T15:04:05Z'", true, true],
    ["StartTime = '2021-08-22T17:04:05+02:00'", true, false],
    ["StartTime < '2021-08-22T15:04:05.001Z'", true, false],
    ["StartTime < '2021-08-22T15:04:05.000001Z'", true, false],
    ["StartTime <= '2021-08-22T08:04:05-07:00'", true, false],
    ["StartTime BETWEEN '2021-08-23T00:00:00Z' AND '2021-08-23T10:00:00Z'", false, true],
    ["StartTime NOT BETWEEN '2021-08-23T00:00:00Z' AND '2021-08-23T10:00:00Z'", true, false],
    // missing values: only IS NULL matches them (SQL semantics)
    ['CloseTime IS NULL', true, false],
    ['CloseTime IS NOT NULL', false, true],
    ["CloseTime > '2000-01-01T00:00:00Z'", false, true],
    ["CloseTime != '2000-01-01T00:00:00Z'", false, true],
    ["CloseTime NOT BETWEEN '2000-01-01T00:00:00Z' AND '2000-01-02T00:00:00Z'", false, true],
    ['ExecutionTime IS NULL', true, false],
    ["CustomKeyword != 'silver'", false, true],
    ["CustomKeyword NOT IN ('silver')", false, true],
    ['CustomKeyword IS NULL', true, false],
    // custom attributes by type
    ["CustomKeyword = 'gold'", false, true],
    ["CustomKeyword = 'Gold'", false, false],
    ["CustomKeyword STARTS_WITH 'go'", false, true],
    ["CustomText = 'foobar'", false, true],
    ["CustomText = 'FooBar'", false, true],
    ["CustomText = 'foo'", false, false],
    ["CustomText = 'nothing foobar'", false, true],
    ["CustomText != 'foo'", false, true],
    ["CustomText != 'business'", false, false],
    ["CustomText IN ('x', 'business')", false, true],
    ['CustomInt = 42', false, true],
    ["CustomInt = '42'", false, true],
    ['CustomInt > 41 AND CustomInt < 43', false, true],
    ['CustomInt BETWEEN 42 AND 42', false, true],
    ['CustomInt IN (1, 2, 42)', false, true],
    ['CustomDouble >= 2.5', false, true],
    ['CustomDouble < 2.5', false, false],
    ['CustomDouble = 2.50', false, true],
    ['CustomBool = true', false, true],
    ['CustomBool = FALSE', false, false],
    ['CustomBool != false', false, true],
    ["CustomDatetime = '2022-01-01T01:00:00+01:00'", false, true],
    ["CustomDatetime < '2022-01-01T00:00:01Z'", false, true],
    ["Tags = 'red'", false, true],
    ["Tags = 'green'", false, false],
    ["Tags != 'green'", false, true],
    ["Tags != 'red'", false, false],
    ["Tags IN ('green', 'blue')", false, true],
    ["Tags NOT IN ('green', 'blue')", false, false],
    ['Tags IS NULL', true, false],
    ["`my-attr` = 'x'", false, true],
    ['`Order` = 7', false, true],
    // boolean structure
    ["WorkflowId = 'order-1234' OR CustomInt = 42", true, true],
    ["WorkflowId = 'order-1234' AND CustomInt = 42", false, false],
    ["WorkflowId = 'nope' OR WorkflowId = 'payment-77' AND CustomInt = 42", false, true],
    ["(WorkflowId = 'order-1234' OR WorkflowId = 'payment-77') AND CustomInt = 42", false, true],
    ["WorkflowId = 'order-1234' OR (WorkflowId = 'payment-77' AND CustomInt = 1)", true, false],
    ["NOT WorkflowId = 'order-1234'", false, true],
    ["NOT (WorkflowId = 'order-1234' OR CustomBool = true)", false, false],
    ['NOT CustomInt = 1', false, true], // unknown stays unknown under NOT
    ['NOT NOT CustomInt IS NULL', true, false],
    // keywords are case-insensitive
    ["WorkflowId = 'x' Or WorkflowId in ('order-1234') aNd CloseTime iS nUlL", true, false],
  ])('%s', (q, onRunning, onCompleted) => {
    expect(match(q, running)).toBe(onRunning);
    expect(match(q, completed)).toBe(onCompleted);
  });

  it('documents the example from the Temporal docs', () => {
    const q =
      'WorkflowType = "main.Pay" and ExecutionStatus != "Running" and (StartTime > "2021-06-07T16:46:34.236-08:00" or CloseTime > "2021-06-07T16:46:34-08:00")';
    expect(match(q, completed)).toBe(true);
    expect(match(q, running)).toBe(false);
  });

  it('tolerates loosely typed stored values', () => {
    const r = rec({
      searchAttributes: { CustomInt: '42', CustomBool: 'true', CustomDatetime: T('2022-01-01T00:00:00Z'), Tags: 'red' },
    });
    expect(matchesVisibilityQuery(parseVisibilityQuery('CustomInt = 42'), r, TYPES)).toBe(true);
    expect(matchesVisibilityQuery(parseVisibilityQuery('CustomBool = true'), r, TYPES)).toBe(true);
    expect(matchesVisibilityQuery(parseVisibilityQuery("CustomDatetime = '2022-01-01T00:00:00Z'"), r, TYPES)).toBe(
      true,
    );
    expect(matchesVisibilityQuery(parseVisibilityQuery("Tags = 'red'"), r, TYPES)).toBe(true);
    expect(
      matchesVisibilityQuery(parseVisibilityQuery('Tags IS NULL'), rec({ searchAttributes: { Tags: [] } }), TYPES),
    ).toBe(true);
  });
});

describe('textTokens', () => {
  it.each([
    ['my-business-id-foobar', ['my', 'business', 'id', 'foobar']],
    ['order-processing-v2', ['order', 'processing', 'v2']],
    ['payment_retry_handler', ['payment_retry_handler']],
    ['com.example.workflows.ProcessOrder', ['com.example.workflows.processorder']],
    ['alpha:bravo', ['alpha:bravo']],
    ["it's", ["it's"]],
    ['v1.2.3', ['v1.2.3']],
    ['v1.ProcessOrder', ['v1', 'processorder']],
    ['  Hello,   World! ', ['hello', 'world']],
    ['---', []],
  ])('%s', (input, tokens) => {
    expect(textTokens(input)).toEqual(tokens);
  });
});

describe('sortRecords', () => {
  const a = rec({ runId: 'a', workflowId: 'w3', startTime: 1000, status: 'Running' });
  const b = rec({ runId: 'b', workflowId: 'w1', startTime: 3000, status: 'Running' });
  const c = rec({
    runId: 'c',
    workflowId: 'w2',
    startTime: 500,
    closeTime: 9000,
    status: 'Failed',
    searchAttributes: { CustomInt: 5 },
  });
  const d = rec({
    runId: 'd',
    workflowId: 'w4',
    startTime: 2000,
    closeTime: 4000,
    status: 'Completed',
    searchAttributes: { CustomInt: -1 },
  });
  const all = [a, b, c, d];
  const ids = (q: string, rs = all) => sortRecords(parseVisibilityQuery(q), rs).map((r) => r.runId);

  it('defaults to CloseTime DESC NULLS FIRST, StartTime DESC (running first, newest first)', () => {
    expect(ids('')).toEqual(['b', 'a', 'c', 'd']);
    expect(ids("WorkflowId != 'x'")).toEqual(['b', 'a', 'c', 'd']);
  });

  it.each([
    ['ORDER BY StartTime', ['c', 'a', 'd', 'b']],
    ['ORDER BY StartTime ASC', ['c', 'a', 'd', 'b']],
    ['ORDER BY StartTime DESC', ['b', 'd', 'a', 'c']],
    ['ORDER BY WorkflowId', ['b', 'c', 'a', 'd']],
    ['order by WorkflowId desc', ['d', 'a', 'c', 'b']],
    ['ORDER BY CloseTime ASC', ['d', 'c', 'b', 'a']], // nulls last ascending, then default tie-break
    ['ORDER BY CloseTime DESC', ['b', 'a', 'c', 'd']], // nulls first descending
    ['ORDER BY ExecutionStatus', ['b', 'a', 'd', 'c']], // Running(1) < Completed(2) < Failed(3)
    ['ORDER BY CustomInt', ['d', 'c', 'b', 'a']],
    ['ORDER BY CustomInt DESC', ['b', 'a', 'c', 'd']],
    ['ORDER BY ExecutionStatus DESC, StartTime ASC', ['c', 'd', 'a', 'b']],
  ])('%s', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });

  it('does not mutate its input', () => {
    const input = [...all];
    sortRecords(parseVisibilityQuery('ORDER BY StartTime'), input);
    expect(input).toEqual(all);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const KEYWORDS = ['a', 'b', 'c'];
const arbRecord: fc.Arbitrary<VisibilityRecord> = fc.record({
  workflowId: fc.constantFrom(...KEYWORDS),
  runId: fc.constantFrom(...KEYWORDS),
  workflowType: fc.constantFrom(...KEYWORDS),
  status: fc.constantFrom('Running', 'Completed', 'Failed'),
  startTime: fc.integer({ min: 0, max: 4 }).map((n) => T('2024-01-01T00:00:00Z') + n * 1000),
  closeTime: fc.option(
    fc.integer({ min: 0, max: 4 }).map((n) => T('2024-01-01T00:00:00Z') + n * 1000),
    {
      nil: undefined,
    },
  ),
  searchAttributes: fc.record(
    {
      CustomInt: fc.integer({ min: 0, max: 4 }),
      CustomKeyword: fc.constantFrom(...KEYWORDS),
      Tags: fc.subarray(KEYWORDS),
    },
    { requiredKeys: [] },
  ),
});

const time = (n: number) => `'2024-01-01T00:00:0${n}Z'`;
const arbAtom: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('WorkflowId', 'RunId', 'WorkflowType', 'CustomKeyword'),
      fc.constantFrom('=', '!=', '<', '>=', 'STARTS_WITH'),
      fc.constantFrom(...KEYWORDS),
    )
    .map(([f, op, v]) => `${f} ${op} '${v}'`),
  fc
    .tuple(
      fc.constantFrom('StartTime', 'CloseTime'),
      fc.constantFrom('=', '!=', '<', '<=', '>', '>='),
      fc.integer({ min: 0, max: 4 }),
    )
    .map(([f, op, n]) => `${f} ${op} ${time(n)}`),
  fc
    .tuple(fc.constantFrom('=', '!=', '<', '>'), fc.integer({ min: 0, max: 4 }))
    .map(([op, n]) => `CustomInt ${op} ${n}`),
  fc.tuple(fc.constantFrom('=', '!='), fc.constantFrom(...KEYWORDS)).map(([op, v]) => `Tags ${op} '${v}'`),
  fc.constantFrom('Running', 'Completed', 'Failed').map((s) => `ExecutionStatus = '${s}'`),
  fc.constantFrom('CloseTime', 'CustomInt', 'Tags').chain((f) => fc.constantFrom(`${f} IS NULL`, `${f} IS NOT NULL`)),
);
const arbExpr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    arbAtom,
    fc.tuple(tie('e'), fc.constantFrom('AND', 'OR'), tie('e')).map(([x, op, y]) => `(${x}) ${op} (${y})`),
    tie('e').map((x) => `NOT (${x})`),
  ),
})).e;

const m = (q: string, r: VisibilityRecord) => matchesVisibilityQuery(parseVisibilityQuery(q), r, TYPES);

describe('properties', () => {
  it('A AND B matches iff A and B both match; A OR B iff either matches', () => {
    fc.assert(
      fc.property(arbExpr, arbExpr, arbRecord, (a, b, r) => {
        expect(m(`(${a}) AND (${b})`, r)).toBe(m(a, r) && m(b, r));
        expect(m(`(${a}) OR (${b})`, r)).toBe(m(a, r) || m(b, r));
      }),
    );
  });

  it('AND binds tighter than OR', () => {
    fc.assert(
      fc.property(arbAtom, arbAtom, arbAtom, arbRecord, (a, b, c, r) => {
        expect(m(`${a} OR ${b} AND ${c}`, r)).toBe(m(`${a} OR (${b} AND ${c})`, r));
        expect(m(`${a} AND ${b} OR ${c}`, r)).toBe(m(`(${a} AND ${b}) OR ${c}`, r));
      }),
    );
  });

  it('IN is a disjunction of equalities and BETWEEN is a closed range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), arbRecord, (x, y, r) => {
        expect(m(`CustomInt IN (${x}, ${y})`, r)).toBe(m(`CustomInt = ${x} OR CustomInt = ${y}`, r));
        expect(m(`CustomInt BETWEEN ${x} AND ${y}`, r)).toBe(m(`CustomInt >= ${x} AND CustomInt <= ${y}`, r));
        expect(m(`StartTime BETWEEN ${time(x)} AND ${time(y)}`, r)).toBe(
          m(`StartTime >= ${time(x)} AND StartTime <= ${time(y)}`, r),
        );
      }),
    );
  });

  it('a comparison and its negation never both match, and one matches unless the value is null', () => {
    fc.assert(
      fc.property(arbAtom, arbRecord, (a, r) => {
        fc.pre(!/IS (NOT )?NULL/.test(a));
        const pos = m(a, r);
        const neg = m(`NOT (${a})`, r);
        expect(pos && neg).toBe(false);
        const field = a.split(' ')[0]!;
        const isNull = m(`${field} IS NULL`, r);
        expect(pos || neg).toBe(!isNull);
      }),
    );
  });

  it('keywords are case-insensitive', () => {
    fc.assert(
      fc.property(arbExpr, fc.boolean(), arbRecord, (e, upper, r) => {
        const recased = e.replace(/\b(AND|OR|NOT|IS|NULL|STARTS_WITH)\b/g, (k) => (upper ? k : k.toLowerCase()));
        expect(m(recased, r)).toBe(m(e, r));
      }),
    );
  });

  it('sortRecords returns an ordered permutation', () => {
    fc.assert(
      fc.property(
        fc.array(arbRecord, { maxLength: 12 }),
        fc.constantFrom('StartTime', 'CloseTime', 'WorkflowId', 'CustomInt'),
        fc.constantFrom('ASC', 'DESC'),
        (rs, field, dir) => {
          const q = parseVisibilityQuery(`ORDER BY ${field} ${dir}`);
          const sorted = sortRecords(q, rs);
          expect([...sorted].sort(byRef(rs))).toEqual([...rs].sort(byRef(rs)));
          expect(sortRecords(q, sorted)).toEqual(sorted);
          const key = (r: VisibilityRecord): number | string | undefined =>
            field === 'StartTime'
              ? r.startTime
              : field === 'CloseTime'
                ? r.closeTime
                : field === 'WorkflowId'
                  ? r.workflowId
                  : (r.searchAttributes.CustomInt as number | undefined);
          for (let i = 1; i < sorted.length; i++) {
            const x = key(sorted[i - 1]!),
              y = key(sorted[i]!);
            // nulls count as larger than every value
            const c = x === undefined ? (y === undefined ? 0 : 1) : y === undefined ? -1 : x < y ? -1 : x > y ? 1 : 0;
            expect(dir === 'ASC' ? c <= 0 : c >= 0).toBe(true);
          }
        },
      ),
    );
  });
});

function byRef(rs: VisibilityRecord[]) {
  return (x: VisibilityRecord, y: VisibilityRecord) => rs.indexOf(x) - rs.indexOf(y);
}
