/**
 * `npm start` (`navigator demo`): the whole wire-transfer mission, approved, with its journal,
 * ledger and a passing audit. On the embedded lane exactly as `npm start` runs it (its own
 * embedded server); on the real lane against a real server through TEMPORAL_ADDRESS, as
 * against a cluster.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBank } from '../../examples/wire-transfer/bank.ts';
import { startTestServer, testServerKind } from '../../src/devserver/testing.ts';
import { runDemo } from './run-demo.ts';

describe('npm start', () => {
  it('runs the wire transfer end to end: waits, is approved, sends once, audits', { timeout: 180_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'demo-'));
    const real =
      testServerKind() === 'temporal'
        ? await startTestServer({ searchAttributes: { NavigatorStatus: 'Keyword' } })
        : null;
    const env: Record<string, string> = real
      ? { TEMPORAL_ADDRESS: real.address, TEMPORAL_NAMESPACE: real.namespace }
      : {};
    try {
      const { code, out } = await runDemo([], env, cwd);
      expect(out, out).toContain(real ? `Temporal cluster at ${real.address}` : 'Embedded Temporal dev server');
      expect(out).toMatch(/waiting for manager_decision_bob_5000/);
      expect(out).toMatch(/result: \{"status":"sent"/);
      expect(out).toContain('external effects run twice: 0');
      expect(out).toContain('replay with the current code: deterministic');
      expect(out).toContain('audit passed');
      // the progress is the checklist for people, not the model's instructions
      expect(out).toMatch(/3 of 3 steps done\n\s+✓ Put a hold on the funds and ask a manager/);
      expect(out).not.toContain('Batch independent steps');
      // the program the model wrote for the pass that sent the wire, and where to see more
      expect(out).toMatch(/== The program the model wrote \(the pass that sent the wire\)\npass 2, turn \d+/);
      expect(out).toContain('(tool/execute_wire {:hold_id (:hold_id hold)})');
      expect(out).toContain('npx navigator console');
      expect(code).toBe(0);
      const bank = readdirSync(join(cwd, '.navigator')).find((f) => f.startsWith('demo-bank-'))!;
      const applied = readBank(join(cwd, '.navigator', bank))
        .filter((r) => r.outcome === 'applied')
        .map((r) => r.operation);
      expect(applied).toEqual(['prepare_wire', 'request_approval', 'execute_wire']);
    } finally {
      await real?.shutdown();
    }
  });
});
