/** The pure parts of the approval cards: the line diff, units, readable values, and what Approve/Reject do. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/plans/file-edit.ts';
import { decisionEffects, readable, sideEffectWords, stepEffects, unitOf } from '../../src/console/explain.ts';
import { asksConfirmation, defineTool } from '../../src/navigator/tool.ts';
import { relative } from '../../src/console/time.ts';
import { markdown } from '../../src/console/markdown.ts';
import { argsFields, argsFromForm } from '../../src/console/forms.ts';
import { checklistFromText } from '../../src/console/mission/checklist.ts';
import { checklistText, renderProgress } from '../../src/navigator/prompt/progress.ts';
import { buildRegistry } from '../../src/worker/agents.ts';
import { z } from 'zod';
import { describe as describeAgent } from '../../src/activities/describe.ts';
import { defineDecision } from '../../src/navigator/index.ts';
import { DecisionContract } from '../../src/workflows/mission/contract.ts';

describe('lineDiff', () => {
  it('keeps and deletes exactly the old lines, keeps and adds exactly the new ones', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '{', '}'), { maxLength: 12 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const d = lineDiff(before, after);
        expect(
          d
            .filter((c) => c.kind !== 'add')
            .map((c) => c.line)
            .join('\n'),
        ).toBe(before);
        expect(
          d
            .filter((c) => c.kind !== 'del')
            .map((c) => c.line)
            .join('\n'),
        ).toBe(after);
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
    const contract = {
      key: 'k',
      description: 'A manager approves or rejects the wire.',
      allowed: ['approved', 'rejected'],
      approveValue: 'approved',
      rejectValue: 'rejected',
      timeoutMs: null,
      expiryValue: null,
    };
    const e = decisionEffects(wire, contract);
    expect(e.approve.join(' ')).toMatch(/execute_wire: Sends the wire of an approved hold\. Irreversible\./);
    expect(e.approve.join(' ')).not.toMatch(/cancel_hold/);
    expect(e.reject.join(' ')).toMatch(/cancel_hold: Releases the hold/);
    expect(e.irreversible).toBe(true);
    expect(decisionEffects(undefined, contract)).toEqual({
      approve: ['The mission goes on with "approved".'],
      reject: ['The mission goes on with "rejected".'],
      irreversible: false,
    });
  });

  it("uses a decision's own words for Approve and Reject when it gives them; what Approve leads to stays irreversible", async () => {
    const wire = (await buildRegistry()).get('wire-transfer')!;
    const contract = {
      key: 'k',
      description: 'd',
      allowed: ['approved', 'rejected'],
      approveValue: 'approved',
      rejectValue: 'rejected',
      timeoutMs: null,
      expiryValue: null,
    };
    const worded = decisionEffects(wire, {
      ...contract,
      onApprove: 'The wire is sent.',
      onReject: 'The hold is released.',
    });
    expect(worded).toEqual({
      approve: ['The wire is sent.'],
      reject: ['The hold is released.'],
      irreversible: true,
      why: 'execute_wire acts on an outside system',
    });
    // one of the two given: the other is derived
    expect(decisionEffects(wire, { ...contract, onReject: 'The hold is released.' }).approve.join(' ')).toMatch(
      /execute_wire: Sends the wire/,
    );
    // only a console that knows none of the agent's tools reads the decision's words
    expect(
      decisionEffects(undefined, { ...contract, onApprove: 'The letter is posted; this cannot be undone.' })
        .irreversible,
    ).toBe(true);
    expect(decisionEffects(undefined, { ...contract, onApprove: 'The note is filed.' }).irreversible).toBe(false);
  });

  it('asks "are you sure?" by the tool\'s class and its own flag, never by the words of its description', () => {
    const tool = (o: { sideEffect: string; destructive?: boolean; confirm?: boolean; description?: string }) =>
      defineTool({
        name: 't',
        description: o.description ?? 'Does it.',
        input: z.object({}),
        handler: () => null,
        ...o,
      });
    expect(asksConfirmation(tool({ sideEffect: 'external' }))).toBe(true);
    expect(asksConfirmation(tool({ sideEffect: 'local', destructive: true }))).toBe(true);
    expect(asksConfirmation(tool({ sideEffect: 'local', confirm: true }))).toBe(true);
    expect(asksConfirmation(tool({ sideEffect: 'local', description: 'Irreversible: this cannot be undone.' }))).toBe(
      false,
    );
    expect(asksConfirmation(tool({ sideEffect: 'read_only' }))).toBe(false);
    // a tool this console does not know: asked about
    expect(asksConfirmation(undefined)).toBe(true);
    // the card's words follow from the same rule
    expect(sideEffectWords(tool({ sideEffect: 'local', description: 'Irreversible.' }))).toBe(
      'Changes data on our side.',
    );
    expect(sideEffectWords(tool({ sideEffect: 'local', destructive: true }))).toMatch(/cannot be taken back from here/);
  });

  it("carries an agent's words from defineDecision to the decision contract, and refuses empty ones", async () => {
    const wire = (await buildRegistry()).get('wire-transfer')!;
    const [contract] = describeAgent(wire.agent, { recipient: 'bob', amount: 5000 }).decisions;
    expect(contract).toMatchObject({
      key: 'manager_decision_bob_5000',
      onApprove: expect.stringMatching(/cannot be undone/),
      onReject: expect.stringMatching(/hold on the funds is released/),
    });
    expect(DecisionContract.parse(contract)).toEqual(contract);
    expect(() =>
      defineDecision({ name: 'd', description: 'd', key: () => 'd', values: z.boolean(), onApprove: '  ' }),
    ).toThrow(/onApprove: must not be empty/);
  });

  it('a denied step blocks its dependents, directly or not', () => {
    const step = (id: string, dependsOn: string[] = []) =>
      ({ id, description: id, tool: 'echo', dependsOn, status: 'pending' }) as never;
    const e = stepEffects(undefined, { id: 'a', tool: 'echo' }, [
      step('a'),
      step('b', ['a']),
      step('c', ['b']),
      step('d'),
    ]);
    expect(e.reject[0]).toBe('The step is skipped; nothing runs. Steps that depend on it are blocked: b, c.');
  });

  it('says times relative to now', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(relative(new Date(now + 23 * 3_600_000), now)).toBe('in 23 hours');
    expect(relative(new Date(now - 5 * 60_000), now)).toBe('5 minutes ago');
    expect(relative(new Date(now + 1000), now)).toBe('just now');
  });
});

describe('text for people', () => {
  it('renders markdown from escaped text only: tags and javascript: links stay text', async () => {
    const out = String(
      await markdown(
        '**Sent** the `wire` to *bob*: [receipt](https://bank.example/r?a=1&b=2)\n\n- one <script>alert(1)</script>\n- [x](javascript:alert(1))',
      ),
    );
    expect(out).toBe(
      '<div class="md"><p><strong>Sent</strong> the <code>wire</code> to <em>bob</em>: <a href="https://bank.example/r?a=1&amp;b=2" rel="noopener noreferrer">receipt</a></p>' +
        '<ul><li>one &lt;script&gt;alert(1)&lt;/script&gt;</li><li>[x](javascript:alert(1))</li></ul></div>',
    );
    expect(String(await markdown('[a](https://x.example/"onmouseover="alert(1))'))).not.toMatch(
      /href="[^"]*"onmouseover/,
    );
  });

  it("reads the model's progress checklist back without its instructions", () => {
    const text = renderProgress(
      [
        { id: 'prepare', description: 'Put a hold' },
        { id: 'finish', description: 'Send it' },
      ],
      { prepare: 'hold **h1** placed', extra: 'looked around' },
    );
    expect(text).toContain('Batch independent steps');
    expect(checklistFromText(text)).toEqual([
      { id: 'prepare', description: 'Put a hold', summary: 'hold **h1** placed', planned: true },
      { id: 'finish', description: 'Send it', planned: true },
      { id: 'extra', description: 'extra', summary: 'looked around', planned: false },
    ]);
  });

  it('writes the checklist for people: steps ticked, reports whole (the summaries query wins over the one-line text), no instructions', () => {
    const summaries = { prepare: 'hold **h1** placed\nfor `bob`', extra: 'looked around' };
    const text = renderProgress(
      [
        { id: 'prepare', description: 'Put a hold' },
        { id: 'finish', description: 'Send it' },
      ],
      summaries,
    );
    const people = checklistText(checklistFromText(text, summaries));
    expect(people).toBe(
      [
        '2 of 3 steps done',
        '  ✓ Put a hold',
        '      hold h1 placed',
        '      for bob',
        '  ○ Send it',
        '  ✓ extra (not on the checklist)',
        '      looked around',
      ].join('\n'),
    );
    expect(people).not.toContain('step-done');
    expect(checklistText([])).toBe('No checklist: the agent has none.');
  });
});

describe('args from a generated form', () => {
  it('reads each field by the kind its name carries, leaves empty ones out, and names a bad one', () => {
    expect(
      argsFromForm({
        stepId: 's',
        'f:integer:n': '7',
        'f:boolean:flag': 'false',
        'f:ref:value': '$a.b',
        'f:json:tags': '["x"]',
        'f:string:label': '',
        'f:string:path': 'a:b.json',
      }),
    ).toEqual({
      n: 7,
      flag: false,
      value: '$a.b',
      tags: ['x'],
      path: 'a:b.json',
    });
    expect(() => argsFromForm({ 'f:number:amount': 'lots' })).toThrow('amount: "lots" is not a number');
    expect(() => argsFromForm({ 'f:json:tags': '[' })).toThrow(/^tags: not JSON/);
  });

  it('shows a reference, an expression and a parameter as such, and reads each back as it was written', () => {
    const schema = z.object({ n: z.number().int(), value: z.any(), when: z.boolean(), limit: z.number() });
    const args = { n: { $expr: '(count step/list)' }, value: '$list.items', when: { $param: 'dry_run' }, limit: 3 };
    const form = String(argsFields(schema, args));
    const inputs = [...form.matchAll(/<input id="([^"]+)" name="[^"]+" value="([^"]*)"[^>]*>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(inputs).toEqual([
      ['f:expr:n', '(count step/list)'],
      ['f:ref:value', '$list.items'],
      ['f:param:when', 'dry_run'],
    ]);
    expect(form).toContain('an expression (PTC-Lisp) worked out when the step runs, kept as written');
    const sent = Object.fromEntries([...inputs, ['f:number:limit', '3']]);
    expect(argsFromForm(sent)).toEqual(args);
    // a JSON field takes a $ reference without quotes
    expect(argsFromForm({ 'f:json:value': ' $list.items ' })).toEqual({ value: '$list.items' });
  });
});
