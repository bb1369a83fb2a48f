/**
 * `--record FILE`: wraps a real model and writes every answer to FILE in the scripted
 * model's format, so a run can later be replayed offline with `createScriptedModel(FILE)`.
 * The file is rewritten after each answer, so a crash keeps everything recorded so far.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ChatModel, ChatRequest } from './model.ts';
import { type ScriptTurn, loadScript } from './scripted.ts';

export interface RecorderOptions {
  /** keep the turns already in FILE and add to them @default false */
  append?: boolean;
  /** text the replayed turn should wait for; none means "next in order" */
  match?: (req: ChatRequest, turn: number) => string | string[] | undefined;
}

export interface RecordingModel extends ChatModel {
  readonly file: string;
  /** the turns recorded so far (with appended ones) */
  readonly turns: readonly ScriptTurn[];
}

export function createRecordingModel(inner: ChatModel, file: string, opts: RecorderOptions = {}): RecordingModel {
  const turns: ScriptTurn[] = opts.append && existsSync(file) ? loadScript(file) : [];
  let calls = 0;
  const save = () => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ model: inner.id, turns }, null, 2)}\n`);
  };
  return {
    id: inner.id,
    file,
    get turns() {
      return turns.slice();
    },
    async generate(req) {
      calls++;
      const res = await inner.generate(req);
      const match = opts.match?.(req, calls);
      turns.push({
        ...(match === undefined ? {} : { match }),
        answer: res.text,
        usage: res.usage,
        note: `${inner.id}, call ${calls}`,
      });
      save();
      return res;
    },
  };
}
