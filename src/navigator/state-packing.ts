/**
 * A suspended pass's state without the copies it carries of each model answer: the
 * conversation (`messages`) is rebuilt from the first message and the turn traces, each
 * turn's program is extracted again from its answer, each turn's tool calls are its
 * share of the pass's, and the pending program is the last turn's. A 4 KB program is then stored once, not four times, in every suspension.
 *
 * Lossless by construction: a part is left out only when rebuilding it gives it back
 * exactly, so `unpackState(packState(s))` deep-equals `s` for any state. A host that can
 * rebuild the pass's first message (`passOpening`, from what the pass started with) gives
 * it to both: it is then left out too, and checked by its hash when the state is unpacked.
 * A long answer is stored deflated (base64): programs are text and shrink two to three
 * times, and the state is opaque to the workflow that keeps it.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { canonicalJson } from '../lisp/json.ts';
import type { ChatMessage } from '../llm/model.ts';
import type { Json } from '../lisp/tools.ts';
import { cut } from '../lisp/printer/edn.ts';
import { extractCode, fencedProgram } from './extract.ts';
import { type PassState, PassStateError, type TurnTrace } from './pass-state.ts';
import { traceCall } from './turn.ts';

/** What `packState` left out, so `unpackState` knows what to rebuild. */
interface Packing {
  /** only the first message is kept (none with `opening`) */
  messages?: true;
  /** the first message is the host's opening with this hash */
  opening?: string;
  /** turns whose `program` is left out (it is extracted from `response` again) */
  programs?: number[];
  /** the pending program is the last turn's */
  pendingCode?: true;
  /** each turn's tool calls are the next this many of the pass's `toolCalls` */
  turnCalls?: number[];
  /** turns whose `response` is stored deflated, base64 */
  deflated?: number[];
}

export type PackedState = PassState & { packing?: Packing };

/** The message the model's answer of a turn became in the conversation. */
const assistantMessage = (t: TurnTrace): ChatMessage => ({
  role: 'assistant',
  content: t.program !== null ? fencedProgram(t.program) : cut(t.response.trim() || '(empty answer)', 2000),
});

/** The conversation as the pass loop builds it: first message, then each answer and its feedback. */
function conversation(first: ChatMessage, trace: readonly TurnTrace[]): ChatMessage[] {
  const out = [first];
  for (const t of trace) {
    out.push(assistantMessage(t));
    if (t.feedback !== null) out.push({ role: 'user', content: t.feedback });
  }
  return out;
}

const extracted = (response: string): string | null => {
  const ex = extractCode(response);
  return ex.ok ? ex.code : null;
};

const same = (a: unknown, b: unknown) => canonicalJson(a as Json) === canonicalJson(b as Json);

/** Answers shorter than this are stored as they are. */
const DEFLATE_FROM = 1024;
const deflate = (text: string) => deflateRawSync(Buffer.from(text, 'utf8'), { level: 9 }).toString('base64');
const inflate = (packed: string) => inflateRawSync(Buffer.from(packed, 'base64')).toString('utf8');

/** Each turn's calls as the pass's calls in turn order, when they are exactly that. */
function turnCallCounts(st: PassState): number[] | null {
  const counts = st.trace.map((t) => t.toolCalls.length);
  let from = 0;
  for (const t of st.trace) {
    const share = st.toolCalls.slice(from, from + t.toolCalls.length).map(traceCall);
    if (!same(share, t.toolCalls)) return null;
    from += t.toolCalls.length;
  }
  return from === st.toolCalls.length ? counts : null;
}

/** What the host can rebuild: the pass's first message. */
export interface PackContext {
  opening?: string;
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

export function packState(st: PassState, host: PackContext = {}): PackedState {
  const packing: Packing = {};
  const first = st.messages[0];
  let messages = first && same(conversation(first, st.trace), st.messages) ? [first] : st.messages;
  if (messages !== st.messages) {
    packing.messages = true;
    if (host.opening !== undefined && first!.role === 'user' && first!.content === host.opening) {
      messages = [];
      packing.opening = hashOf(host.opening);
    }
  }
  const turnCalls = turnCallCounts(st);
  if (turnCalls) packing.turnCalls = turnCalls;
  const programs: number[] = [];
  const deflated: number[] = [];
  const trace = st.trace.map((t, i) => {
    let packed: TurnTrace = turnCalls ? { ...t, toolCalls: [] } : t;
    if (t.response.length >= DEFLATE_FROM) {
      const small = deflate(t.response);
      if (small.length < t.response.length) {
        packed = { ...packed, response: small };
        deflated.push(i);
      }
    }
    if (t.program === null || extracted(t.response) !== t.program) return packed;
    programs.push(i);
    const { program: _, ...rest } = packed;
    return rest as TurnTrace;
  });
  if (programs.length) packing.programs = programs;
  if (deflated.length) packing.deflated = deflated;
  const last = st.trace[st.trace.length - 1];
  let pending = st.pending;
  if (pending && last && last.program === pending.code) {
    const { code: _, ...rest } = pending;
    pending = rest as PassState['pending'];
    packing.pendingCode = true;
  }
  if (!Object.keys(packing).length) return st;
  return { ...st, messages, trace, pending, packing };
}

export function unpackState(packed: PackedState, host: PackContext = {}): PassState {
  const { packing, ...st } = packed;
  if (!packing) return st;
  if (packing.opening !== undefined) {
    if (host.opening === undefined || hashOf(host.opening) !== packing.opening) {
      throw new PassStateError(
        'the first message of the suspended pass cannot be rebuilt: the agent or what the pass started with changed',
      );
    }
    st.messages = [{ role: 'user', content: host.opening }];
  }
  const answers = turnAnswers(packed);
  let from = 0;
  const trace = st.trace.map((t, i) => {
    const n = packing.turnCalls?.[i];
    const { response, program } = answers[i]!;
    const calls =
      n === undefined
        ? { ...t, response }
        : { ...t, response, toolCalls: st.toolCalls.slice(from, (from += n)).map(traceCall) };
    return { ...calls, program };
  });
  const messages = packing.messages && st.messages[0] ? conversation(st.messages[0], trace) : st.messages;
  const last = trace[trace.length - 1];
  const pending =
    packing.pendingCode && st.pending && last?.program ? { ...st.pending, code: last.program } : st.pending;
  return { ...st, messages, trace, pending };
}

/**
 * Each turn's answer and program from a packed state, without the host's opening (the
 * audit reads the programs of a suspended pass from history with this).
 */
export function turnAnswers(packed: PackedState): Array<{ response: string; program: string | null }> {
  const programs = new Set(packed.packing?.programs ?? []);
  const deflated = new Set(packed.packing?.deflated ?? []);
  return (packed.trace ?? []).map((t, i) => {
    const response = deflated.has(i) ? inflate(t.response) : t.response;
    return { response, program: programs.has(i) ? extracted(response) : t.program };
  });
}
