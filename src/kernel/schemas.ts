/**
 * The zod schemas of the shared words in `contract.ts`, for the boundaries that parse
 * (clients, activities, tool definitions). Workflow code imports their types only.
 */
import { z } from 'zod';
import { type Json, SIDE_EFFECT_CLASSES } from './contract.ts';

export const JsonValue: z.ZodType<Json, Json> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);

export const SideEffectClass = z.enum(SIDE_EFFECT_CLASSES);
export type SideEffectClass = z.infer<typeof SideEffectClass>;
