/**
 * ptc_runner's LLM benchmark as a suite of the evaluation harness (`npm run eval -- --suite
 * benchmark`): the 30 tasks as cases, their recordings, and the reference's published
 * results to print beside ours.
 */
import { fileURLToPath } from 'node:url';

export { TASKS, benchmarkCases, caseName, checkAnswer, type BenchmarkTask } from './tasks.ts';

export const benchmarkRecordingsDir = fileURLToPath(new URL('./recordings/', import.meta.url));

/** The reference's newest published results (docs/benchmark-eval.md, v0.10.1, May 2026). */
export const PUBLISHED = [
  'published by ptc_runner (v0.10.1, 30 tasks x 5 runs, OpenRouter, schema data mode):',
  'model                  pass rate        avg attempts',
  'Gemini 3.1 Flash Lite  99.3% (149/150)  1.25',
  'Claude Haiku 4.5       99.3% (149/150)  1.31',
  'ours: "correct" is their pass, "model calls" their attempts (calls per task).',
].join('\n');
