import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateJson } from '../../src/navigator/index.ts';

const problems = (schema: z.ZodType, value: unknown): string[] => {
  const r = validateJson(schema, value as never);
  return r.ok ? [] : r.problems;
};

describe('validateJson', () => {
  it('passes valid values through the schema (defaults applied)', () => {
    expect(validateJson(z.object({ a: z.number(), b: z.string().default('x') }), { a: 1 })).toEqual({
      ok: true,
      value: { a: 1, b: 'x' },
    });
  });

  it('phrases problems in PTC-Lisp terms with paths', () => {
    const schema = z.object({
      amount: z.number(),
      count: z.number().int(),
      status: z.enum(['sent', 'cancelled']),
      kind: z.literal('wire'),
      items: z.array(z.object({ id: z.string() })),
      id: z.union([z.string(), z.number()]),
      note: z.string().min(3),
      strict: z.strictObject({ a: z.boolean() }),
      missing: z.string(),
    });
    expect(
      problems(schema, {
        amount: '5',
        count: 1.5,
        status: 'done',
        kind: 'cash',
        items: [{ id: 'a' }, { id: 2 }],
        id: null,
        note: 'ab',
        strict: { a: true, b: 1 },
      }),
    ).toMatchInlineSnapshot(`
      [
        "amount: expected number, got string",
        "count: expected integer, got number",
        "status: expected one of "sent", "cancelled", got "done"",
        "kind: expected "wire", got "cash"",
        "items.1.id: expected string, got integer",
        "id: expected string or number, got nil",
        "note: too small: expected string to have >=3 characters",
        "strict: unexpected key :b",
        "missing: expected string, got nothing (missing)",
      ]
    `);
  });

  it('names the root', () => {
    expect(problems(z.object({ a: z.number() }), 'x')).toEqual(['(root): expected map, got string']);
    expect(problems(z.array(z.number()), { a: 1 })).toEqual(['(root): expected vector, got map']);
  });
});
