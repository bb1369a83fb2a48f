/**
 * What a running pass shows live (issue 41): the heartbeat details of its `runPass`
 * activity, read from DescribeWorkflowExecution's pending activities by the console's
 * mission page and `navigator watch`. Heartbeat details are not kept in history (only the
 * last one of an attempt that fails or times out is, in its failure), so what streams here
 * costs a mission's history nothing; it goes through Temporal, so it works wherever the
 * console and the worker run.
 */

/** One tool call the pass's program makes itself (inline), as it starts and ends. */
export interface LiveCall {
  /** its number in the pass, from 1 */
  n: number;
  turn: number;
  tool: string;
  taskId?: string;
  status: 'running' | 'done' | 'failed';
  /** how long it took, once it ended */
  ms?: number;
  error?: string;
}

/** A running pass now: what it does (as data and as one line), the program so far, its calls. */
export interface LivePass {
  pass: number;
  phase: 'starting' | 'model' | 'program';
  turn?: number;
  outputTokens?: number;
  /** what it does, in one line: `pass 2, turn 1: model answering, 120 tokens` */
  text: string;
  /** the model's answer for this turn so far (its last {@link LIVE_PROGRAM_CHARS} characters) */
  program?: string;
  /** the latest {@link LIVE_CALLS} inline tool calls of the pass */
  calls?: LiveCall[];
}

/** The most of a program a heartbeat carries: its end, where the model writes. */
export const LIVE_PROGRAM_CHARS = 16_000;
/** The most calls a heartbeat carries: the latest. */
export const LIVE_CALLS = 20;

/** A heartbeat's details as a live pass, or null when they are not one (an older worker's, say). */
export function livePassOf(details: unknown): LivePass | null {
  const d = details as Partial<LivePass> | null;
  if (!d || typeof d !== 'object' || typeof d.text !== 'string' || typeof d.pass !== 'number') return null;
  return d as LivePass;
}
