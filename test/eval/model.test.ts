/**
 * The harness with a model given as `--model` (an OpenAI-compatible endpoint, here a local
 * fake that answers as a model would): calls per mission and tokens are counted from the
 * real provider's calls, and a warm worker shows the remembered result shape on the first
 * turn of the next mission, which the endpoint receives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, summarize } from '../../eval/report.ts';
import { runSuite } from '../../eval/run.ts';
import { type FakeServer, openaiCompletion, startFakeServer } from '../llm/fake-server.ts';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => server?.close());

const clj = (code: string) => '```clojure\n' + code + '\n```';
const PRINT = clj('(prn (take 2 (tool/list_invoices)))');
const FULL = clj(`(let [overdue (->> (tool/list_invoices)
                   (remove :paid)
                   (map #(assoc % :days (date/days-between (:due %) data/today)))
                   (filter #(> (:days %) 14)))]
  (doseq [i overdue]
    (task (str "remind_" (:id i)) (tool/send_reminder {:invoice (:id i) :days_overdue (:days i)})))
  (return {:reminded (mapv :id overdue)}))`);

describe('eval with --model', () => {
  it('reports calls per mission and tokens of a real provider, cold and warm', async () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 50 };
    server.reply(
      { body: openaiCompletion(PRINT, usage) },
      { body: openaiCompletion(FULL, usage) },
      { body: openaiCompletion(FULL, usage) },
    );
    const model = `openai-compatible:${server.url}/v1#test-model`;
    const results = await runSuite({ model, only: ['invoice-reminders'], runs: 2 });
    expect(results.map((r) => [r.run, r.correct, r.modelCalls, r.tokens])).toEqual([
      [1, true, 2, 2100],
      [2, true, 1, 1050],
    ]);
    expect(server.received).toHaveLength(3);
    const firstTurn = (i: number) => JSON.stringify(server.received[i]!.body.messages);
    expect(firstTurn(0)).toContain('tool/list_invoices {} -> any');
    expect(firstTurn(2)).toContain(
      'tool/list_invoices {} -> [{:id string, :customer string, :due string, :amount integer, :paid boolean}] (as an earlier call returned)',
    );
    expect(summarize(results).byRun).toEqual([
      { run: 1, missions: 1, meanModelCalls: 2 },
      { run: 2, missions: 1, meanModelCalls: 1 },
    ]);
    expect(formatReport(model, results)).toContain(`model: ${model}`);
  }, 120_000);
});
