/** The pure parts of the approval cards: the line diff, units, readable values, and what Approve/Reject do. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/console/diff.ts';
import { decisionEffects, readable, stepEffects, unitOf } from '../../src/console/explain.ts';
import { relative } from '../../src/console/time.ts';
import { buildRegistry } from '../../src/worker/agents.ts';

describe('lineDiff', () => {
  it('keeps and deletes exactly the old lines, keeps and adds exactly the new ones', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '{', '}'), { maxLength: 12 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const d = lineDiff(before, after);
        expect(d.filter((c) => c.kind !== 'add').map((c) => c.line).join('\n')).toBe(before);
        expect(d.filter((c) => c.kind !== 'del').map((c) => c.line).join('\n')).toBe(after);
      }),
    );
  });
  it('marks one changed line of a JSON file', () => {
    const d = lineDiff('{\n  "version": "1.4.2"\n}\n', '{\n  "version": "2.0.0"\n}\n');
    expect(d.filter((c) => c.kind !== 'same')).toEqual([
      { kind: 'del', line: '  "version": "1.4.2"' },
      { kind: 'add', line: '  "version": "2.0.0"' },
    ]);
  });
});

describe('values and effects in words', () => {
  it('reads units from descriptions and groups numbers', () => {
    expect(unitOf('amount in USD')).toBe('USD');
    expect(unitOf('how long to wait in seconds')).toBe('seconds');
    expect(unitOf('account name of the recipient')).toBeNull();
    expect(readable(5000, 'amount in USD')).toBe('5,000 USD');
    expect(readable(true)).toBe('yes');
  });

  it("splits the wire agent's outside tools between Approve and Reject, and flags the irreversible one", async () => {
    const wire = (await buildRegistry()).get('wire-transfer')!;
    const contract = { key: 'k', description: 'A manager approves or rejects the wire.', allowed: ['approved', 'rejected'], approveValue: 'approved', rejectValue: 'rejected', timeoutMs: null, expiryValue: null };
    const e = decisionEffects(wire, contract);
    expect(e.approve.join(' ')).toMatch(/execute_wire: Sends the wire of an approved hold\. Irreversible\./);
    expect(e.approve.join(' ')).not.toMatch(/cancel_hold/);
    expect(e.reject.join(' ')).toMatch(/cancel_hold: Releases the hold/);
    expect(e.irreversible).toBe(true);
    expect(decisionEffects(undefined, contract)).toEqual({ approve: ['The mission goes on with "approved".'], reject: ['The mission goes on with "rejected".'], irreversible: false });
  });

  it('a denied step blocks its dependents, directly or not', () => {
    const step = (id: string, dependsOn: string[] = []) => ({ id, description: id, tool: 'echo', dependsOn, status: 'pending' }) as never;
    const e = stepEffects(undefined, { id: 'a', tool: 'echo' }, [step('a'), step('b', ['a']), step('c', ['b']), step('d')]);
    expect(e.reject[0]).toBe('The step is skipped; nothing runs. Steps that depend on it are blocked: b, c.');
  });

  it('says times relative to now', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(relative(new Date(now + 23 * 3_600_000), now)).toBe('in 23 hours');
    expect(relative(new Date(now - 5 * 60_000), now)).toBe('5 minutes ago');
    expect(relative(new Date(now + 1000), now)).toBe('just now');
  });
});
