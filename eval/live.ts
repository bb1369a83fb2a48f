/**
 * Live runs through the model relay (../shared/tools/model-relay): an LLM plays the model,
 * answering each `NNN.request.md` the relay writes with an `NNN.answer.md`. The relay
 * folder is the run's evidence and its recording: `--relay DIR` writes `DIR/manifest.json`,
 * naming for every case the request files it created (its model calls) and the answer
 * files it was given, in order, with its outcome. Copied into the repository
 * (eval/recordings/live/RUN/), `replayModel` answers each case from those files, offline,
 * with no one answering.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatModel } from '../src/llm/model.ts';
import type { RunResult } from './runner.ts';

export interface ManifestEntry {
  suite: string;
  case: string;
  run: number;
  correct: boolean;
  why: string | null;
  passes: number;
  /** request files the case created (a request byte-identical to an earlier one creates none: the relay answers it from that one's answer) */
  requests: string[];
  /** the answer file of each model call, in call order (a repeated request reuses an earlier one); their number is the case's model calls */
  answers: string[];
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
  /** times the mission waited for effects to be approved (absent in runs recorded before it was counted) */
  approvalRounds?: number;
}

export interface Manifest {
  /** what this run measured (e.g. "baseline: prompts of commit 8b06fb6") */
  label: string;
  model: string;
  entries: ManifestEntry[];
}

export const manifestPath = (dir: string) => join(dir, 'manifest.json');

/**
 * A manifest as recorded. Model calls are the calls the mission made: the request files it
 * created, or more when the relay answered a request byte-identical to an earlier one from
 * that answer (a resumed mission's first request can repeat its predecessor's) — a real
 * endpoint would have been called.
 */
export function readManifest(dir: string): Manifest | null {
  const file = manifestPath(dir);
  if (!existsSync(file)) return null;
  const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  for (const e of m.entries) e.modelCalls = Math.max(e.requests.length, e.answers.length);
  return m;
}

/** The request files in a relay folder (`001`, `002`, ...). */
export const requestIds = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /^\d+\.request\.md$/.test(f))
        .map((f) => f.slice(0, -'.request.md'.length))
        .sort()
    : [];

/** The answer file holding `text` (the newest such, from `candidates` first). */
function answerIdOf(dir: string, text: string, candidates: readonly string[]): string | null {
  const all = requestIds(dir);
  for (const id of [...candidates, ...all.reverse()]) {
    const file = join(dir, `${id}.answer.md`);
    if (existsSync(file) && readFileSync(file, 'utf8') === text) return id;
  }
  return null;
}

/**
 * Watches a relay folder while a suite runs: `before()` ahead of each case, `after(result)`
 * when it ended, which appends its entry to the manifest at once (a session can end
 * abruptly; what was measured stays).
 */
export function relayRecorder(dir: string, suite: string, model: string, label: string) {
  const manifest: Manifest = readManifest(dir) ?? { label, model, entries: [] };
  let seen = new Set<string>();
  return {
    before(): void {
      seen = new Set(requestIds(dir));
    },
    after(r: RunResult): ManifestEntry {
      const requests = requestIds(dir).filter((id) => !seen.has(id));
      const answers = (r.answers ?? []).map((text) => answerIdOf(dir, text, requests) ?? '?');
      const entry: ManifestEntry = {
        suite,
        case: r.case,
        run: r.run,
        correct: r.correct,
        why: r.why,
        passes: r.passes,
        requests,
        answers,
        modelCalls: Math.max(requests.length, answers.length),
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        seconds: Math.round(r.durationMs / 100) / 10,
        ...(r.approvalRounds ? { approvalRounds: r.approvalRounds } : {}),
      };
      manifest.entries.push(entry);
      writeFileSync(manifestPath(dir), `${JSON.stringify(manifest, null, 2)}\n`);
      return entry;
    },
  };
}

/** A model answering one recorded case from its answer files, in order; a call past them fails loudly. */
export function replayModel(dir: string, entry: Pick<ManifestEntry, 'case' | 'answers'>): ChatModel {
  const texts = entry.answers.map((id) => {
    const file = join(dir, `${id}.answer.md`);
    if (!existsSync(file)) throw new Error(`${entry.case}: the recording has no ${id}.answer.md in ${dir}`);
    return readFileSync(file, 'utf8');
  });
  let next = 0;
  return {
    id: `replay:${entry.case}`,
    async generate(req) {
      const text = texts[next++];
      if (text === undefined)
        throw new Error(`${entry.case}: the live recording has ${texts.length} answers; call ${next} has none`);
      const input = Math.ceil((req.system.length + req.messages.reduce((a, m) => a + m.content.length, 0)) / 4);
      return { text, usage: { inputTokens: input, outputTokens: Math.ceil(text.length / 4) } };
    },
  };
}
