/**
 * The tool contract as the interpreter sees it. `src/navigator` builds agent tools on
 * top of this (`defineTool`); `navigator eval --tools` loads arrays of these.
 */
import { z } from 'zod';

import { SideEffectClass } from '../kernel/schemas.ts';

export { type Json, SIDE_EFFECT_CLASSES } from '../kernel/contract.ts';
export { SideEffectClass } from '../kernel/schemas.ts';

export interface ToolContext {
  /** Stable key for this call: derived from the run id and the task id, or from the
   *  run id, tool name and canonical args when the call is outside any task. */
  idempotencyKey: string;
  /** The enclosing `(task id ...)`, if any. */
  taskId: string | null;
  /** Aborted when the program's deadline passes. */
  signal: AbortSignal;
  /** Reports progress (0-100) and log lines of a long call; plan steps show them live. */
  report?: (update: { progress?: number; log?: string }) => void;
}

export interface ToolDef {
  name: string;
  description: string;
  /** zod schema of the argument map; validated before the handler runs */
  input: z.ZodType;
  /** unknown or missing means `external` */
  sideEffect?: SideEffectClass;
  /**
   * The key spellings of `input`, computed beforehand: set for a tool whose schema lives
   * in another thread (the sandbox), where only a validating proxy of `input` exists
   */
  keyShape?: import('./json.ts').KeyShape | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool's own args, checked by its schema
  handler: (args: any, ctx: ToolContext) => unknown | Promise<unknown>;
}

/** Missing or unknown classes count as `external`, the safe default. */
export function sideEffectOf(tool: Pick<ToolDef, 'sideEffect'>): SideEffectClass {
  const parsed = SideEffectClass.safeParse(tool.sideEffect);
  return parsed.success ? parsed.data : 'external';
}
