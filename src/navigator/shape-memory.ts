/**
 * Result shapes remembered across missions, per agent and tool, on one worker: a tool
 * without an `output` schema shows `-> any` on a mission's first pass, and a model then
 * spends its first turn printing a read result to learn its keys. With the shape an
 * earlier mission's call returned (`-> [{:id string, :due string}] (as an earlier call
 * returned)`), the first turn can be the whole program.
 *
 * Shapes only (types and key names, ~300 characters each, see result-shape.ts), never
 * values; bounded (least recently used out); the latest successful result wins, so a
 * tool whose result changed shape is corrected by its next call. Only tools without an
 * `output` schema are kept: a declared output is shown as declared.
 */
import { shapesFromCalls } from './result-shape.ts';
import type { Json } from '../lisp/tools.ts';

/** What the memory needs of an agent: its name and which tools declare no output. */
export interface ShapeAgent {
  name: string;
  tools: ReadonlyArray<{ name: string; output?: unknown }>;
}

export interface ShapeCall {
  tool: string;
  result?: Json;
  error?: string;
  status?: string;
}

/** Agent-and-tool pairs kept by default: at most ~300 characters each. */
export const DEFAULT_SHAPE_ENTRIES = 500;

export class ShapeMemory {
  // insertion order is recency: a read or write moves the entry to the end
  private readonly shapes = new Map<string, string>();

  constructor(private readonly maxEntries = DEFAULT_SHAPE_ENTRIES) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`ShapeMemory: maxEntries must be a positive integer, got ${maxEntries}`);
  }

  get size(): number {
    return this.shapes.size;
  }

  /** Forgets every shape, as a newly started worker would have none. */
  clear(): void {
    this.shapes.clear();
  }

  /** Keeps the shape of each tool's first successful result in `calls` (tools without output only). */
  learn(agent: ShapeAgent, calls: readonly ShapeCall[]): void {
    const open = untyped(agent);
    for (const [tool, shape] of Object.entries(shapesFromCalls(calls))) {
      if (!open.has(tool)) continue;
      const key = keyOf(agent.name, tool);
      this.shapes.delete(key);
      this.shapes.set(key, shape);
    }
    while (this.shapes.size > this.maxEntries) this.shapes.delete(this.shapes.keys().next().value!);
  }

  /** The remembered shapes of the agent's tools without output, by tool name. */
  shapesFor(agent: ShapeAgent): Record<string, string> {
    const out: Record<string, string> = {};
    for (const tool of untyped(agent)) {
      const key = keyOf(agent.name, tool);
      const shape = this.shapes.get(key);
      if (shape === undefined) continue;
      this.shapes.delete(key);
      this.shapes.set(key, shape);
      out[tool] = shape;
    }
    return out;
  }
}

const keyOf = (agent: string, tool: string): string => `${agent}\u0000${tool}`;
const untyped = (agent: ShapeAgent): Set<string> => new Set(agent.tools.filter((t) => !t.output).map((t) => t.name));

/**
 * The shapes a pass starts with: what this mission's own calls showed (`fromMission`, from
 * its ledger) wins over what earlier missions showed.
 */
export function passShapes(
  memory: ShapeMemory | undefined,
  agent: ShapeAgent,
  fromMission: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (!memory) return fromMission ? { ...fromMission } : undefined;
  const merged = { ...memory.shapesFor(agent), ...fromMission };
  return Object.keys(merged).length ? merged : undefined;
}
