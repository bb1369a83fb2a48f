/**
 * Agent tools: a name, a description, a zod schema for the argument map, a side-effect
 * class and a handler. `defineTool` validates the definition and produces the
 * interpreter's {@link ToolDef}, with handler arguments typed from the schema.
 *
 * ```ts
 * const prepareWire = defineTool({
 *   name: 'prepare_wire',
 *   description: 'Puts a hold on the funds and returns the hold id.',
 *   input: z.object({ recipient: z.string(), amount: z.number().positive() }),
 *   sideEffect: 'external',
 *   handler: async ({ recipient, amount }, { idempotencyKey }) => bank.hold(recipient, amount, idempotencyKey),
 * });
 * ```
 */
import { z } from 'zod';
import { type Json, type SideEffectClass, type ToolContext, type ToolDef, sideEffectOf } from '../lisp/tools.ts';

/** Names the model calls as `tool/NAME`: a PTC-Lisp symbol without `/`. */
export const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export interface ToolSpec<I extends z.ZodObject> {
  name: string;
  description: string;
  /** the argument map; keys keep their spelling (`max_results`), `-`↔`_` is forgiven */
  input: I;
  /**
   * what the handler returns, for the signature the model sees (`-> {:hold_id string}`).
   * Declare it: without it the model sees `-> any` until a call has returned (a mission
   * then shows the shape it saw), and often spends a turn printing a result to learn it.
   */
  output?: z.ZodType;
  /** `read_only`, `local`, `memory` or `external`; anything else counts as `external` */
  sideEffect?: SideEffectClass | (string & {});
  /** an argument map shown in the example call instead of one derived from the schema */
  example?: z.input<I>;
  /** irreversible or dangerous (deletes, overwrites): plan steps using it wait for approval */
  destructive?: boolean;
  /** every call waits for a person's approval before it runs, in missions as in plans */
  requiresApproval?: boolean;
  /**
   * an approver is asked "are you sure?" before approving a call of it. External and
   * destructive tools always are (their class); `true` asks for another class too.
   */
  confirm?: boolean;
  /** the roles allowed to approve or deny its calls in missions and its plan steps (which then always wait for approval); absent: anyone who may send updates; see docs/security.md */
  approvers?: string[];
  handler: (args: z.output<I>, ctx: ToolContext) => unknown | Promise<unknown>;
}

/** A tool as the Navigator keeps it: the interpreter's ToolDef plus prompt metadata. */
export interface NavigatorTool extends ToolDef {
  input: z.ZodObject;
  sideEffect: SideEffectClass;
  output?: z.ZodType;
  example?: Record<string, Json>;
  destructive: boolean;
  requiresApproval: boolean;
  /** see {@link ToolSpec.confirm}; absent: by class only */
  confirm?: boolean;
  approvers?: string[];
}

/**
 * Thrown by a tool handler when the service refused the request for good (a 4xx: bad
 * input, not allowed): the call is not retried, and the model sees the message at once
 * and can change its request.
 */
export class ToolRejected extends Error {
  override readonly name = 'ToolRejected';
}

/** A bad tool or agent definition. The message lists every problem with its path. */
export class DefinitionError extends Error {
  override readonly name = 'DefinitionError';

  constructor(
    readonly what: string,
    readonly problems: string[],
  ) {
    super(`${what}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const isZod = (v: unknown): v is z.ZodType => v instanceof z.ZodType;

/** `approvers` of a decision or tool: role names, at least one. */
export const Approvers = z
  .array(z.string().regex(/^[\w.-]+$/, 'a role is letters, digits, _, . or -'), {
    error: 'must be a list of role names',
  })
  .min(1, 'name at least one role (or leave approvers out)');

export const ToolSpecSchema = z.object({
  name: z
    .string({ error: 'must be a string' })
    .regex(TOOL_NAME, 'must start with a letter or _ and contain only letters, digits, _ and - (called as tool/NAME)'),
  description: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty'),
  input: z.custom<z.ZodObject>((v) => v instanceof z.ZodObject, {
    error: 'must be a zod object schema (z.object({...}); use z.object({}) for no arguments)',
  }),
  output: z.custom<z.ZodType>(isZod, { error: 'must be a zod schema' }).optional(),
  sideEffect: z.unknown().optional(),
  example: z.record(z.string(), z.unknown()).optional(),
  destructive: z.boolean({ error: 'must be true or false' }).optional(),
  requiresApproval: z.boolean({ error: 'must be true or false' }).optional(),
  confirm: z.boolean({ error: 'must be true or false' }).optional(),
  approvers: Approvers.optional(),
  handler: z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', {
    error: 'must be a function (args, ctx) => result',
  }),
});

/** Path-level problems from a zod error: `tools.1.name: must be a string`. */
export function problemsOf(error: z.ZodError, prefix: Array<string | number> = []): string[] {
  return error.issues.map((i) => {
    const path = [...prefix, ...i.path].map(String).join('.');
    return path ? `${path}: ${i.message}` : i.message;
  });
}

export function defineTool<I extends z.ZodObject>(spec: ToolSpec<I>): NavigatorTool {
  const parsed = ToolSpecSchema.safeParse(spec);
  const label = `defineTool(${typeof spec?.name === 'string' ? JSON.stringify(spec.name) : '?'})`;
  if (!parsed.success) throw new DefinitionError(label, problemsOf(parsed.error));
  if (spec.example !== undefined) {
    const ex = spec.input.safeParse(spec.example);
    if (!ex.success) throw new DefinitionError(label, problemsOf(ex.error, ['example']));
  }
  return {
    name: spec.name,
    description: spec.description.trim(),
    input: spec.input,
    output: spec.output,
    sideEffect: sideEffectOf({ sideEffect: spec.sideEffect as SideEffectClass | undefined }),
    example: spec.example as Record<string, Json> | undefined,
    destructive: spec.destructive ?? false,
    requiresApproval: spec.requiresApproval ?? false,
    ...(spec.confirm ? { confirm: true } : {}),
    ...(spec.approvers ? { approvers: [...spec.approvers] } : {}),
    handler: spec.handler as ToolDef['handler'],
  };
}

/**
 * Whether approving a call of `tool` asks "are you sure?" first: by its side-effect class
 * (it acts on an outside system, or overwrites or deletes) or its own `confirm` flag, never
 * by the words of its description, so every card (a mission effect, a plan step, a batch)
 * asks for the same tools. A tool nobody here knows is asked about: better once too often.
 */
export function asksConfirmation(
  tool: Pick<NavigatorTool, 'sideEffect' | 'destructive' | 'confirm'> | undefined,
): boolean {
  if (!tool) return true;
  return tool.sideEffect === 'external' || tool.destructive || tool.confirm === true;
}
