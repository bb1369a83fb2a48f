/**
 * A tool's failure as a program sees it (issue 43): `(ex-message e)` is the service's or
 * the person's reason alone, `(ex-data e)` names the tool and the class of failure. The
 * texts parsed are those the activities and the mission workflow make of a failure.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import type { ToolDef } from '../../src/lisp/tools.ts';
import { toolFailure } from '../../src/lisp/tool-failure.ts';

class ToolRejected extends Error {
  override readonly name = 'ToolRejected';
}

const coupon = (handler: ToolDef['handler'], sideEffect: ToolDef['sideEffect'] = 'read_only'): ToolDef => ({
  name: 'apply_coupon',
  description: 'd',
  input: z.object({ code: z.string() }),
  sideEffect,
  handler,
});
const caught = '(try (task "t" (tool/apply_coupon {:code "X"})) (catch Exception e [(ex-message e) (ex-data e)]))';

describe('a failed tool call caught by the program', () => {
  it("an inline tool the service refuses: the service's message alone, tool and class as data", async () => {
    const tool = coupon(() => {
      throw new ToolRejected('coupon X expired on 2024-03-31');
    });
    const r = await run(caught, { tools: [tool] });
    expect(r.status).toBe('ok');
    expect(prStr((r as unknown as { value: never }).value)).toBe(
      '["coupon X expired on 2024-03-31" {:type :tool_error, :tool "apply_coupon", :class :rejected}]',
    );
  });

  it('an inline tool that fails otherwise: its message, class failed', async () => {
    const tool = coupon(() => {
      throw new Error('connection reset');
    });
    const r = await run(caught, { tools: [tool] });
    expect(prStr((r as unknown as { value: never }).value)).toBe(
      '["connection reset" {:type :tool_error, :tool "apply_coupon", :class :failed}]',
    );
  });

  it.each([
    ['tool apply_coupon rejected the call: coupon X expired', 'rejected', 'coupon X expired'],
    [
      'tool apply_coupon was not approved: denied by ana: the bank details are not verified',
      'denied',
      'the bank details are not verified',
    ],
    ['tool apply_coupon was not approved: denied: no budget left', 'denied', 'no budget left'],
    ['tool apply_coupon was not approved: denied by ana', 'denied', 'denied by ana'],
    [
      'tool apply_coupon was not approved: no approval before the deadline',
      'expired',
      'no approval before the deadline',
    ],
    ['tool apply_coupon failed: HTTP 503: try later', 'failed', 'HTTP 503: try later'],
    [
      'invalid arguments for tool apply_coupon: args.code: required',
      'failed',
      'invalid arguments for tool apply_coupon: args.code: required',
    ],
  ])('an effect whose host recorded %j: class %s, reason %j', async (text, cls, reason) => {
    expect(toolFailure('apply_coupon', text)).toEqual({ tool: 'apply_coupon', class: cls, reason });
    const tool = coupon(() => null, 'external');
    const first = (await run(caught, {
      tools: [tool],
      journal: new Map(),
      effects: { runId: 'r', isEffect: () => true },
    })) as { effects?: Array<{ id: string }> };
    const id = first.effects![0]!.id;
    const r = await run(caught, {
      tools: [tool],
      journal: new Map(),
      effects: { runId: 'r', isEffect: () => true, errors: new Map([[id, text]]) },
    });
    expect(prStr((r as unknown as { value: never }).value)).toBe(
      `[${JSON.stringify(reason)} {:type :tool_error, :tool "apply_coupon", :class :${cls}}]`,
    );
  });

  it('uncaught, the error the model reads still names the tool and the whole failure', async () => {
    const tool = coupon(() => {
      throw new ToolRejected('coupon X expired');
    });
    const r = await run('(tool/apply_coupon {:code "X"})', { tools: [tool] });
    expect(r.status === 'error' && r.error.toLine()).toBe(
      'tool_error: tool/apply_coupon failed: coupon X expired (line 1, column 1)',
    );
  });
});
