/**
 * The dev server's modules form a clear dependency order: no module reaches, through its
 * imports (type-only ones included), back to itself. Shared state (proto, model, errors,
 * history, engine) is at the bottom, workflow-task-schedule and command-context just above;
 * then the domain modules (activities, timers, updates, queries, lifecycle; children and
 * closing on lifecycle); the tables joining them (commands, timeouts, service) on top.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../../src/devserver/', import.meta.url));

type Graph = Map<string, string[]>;

/** Sibling modules a source text imports or re-exports, statically or dynamically. */
function localImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = new Set<string>();
  const statics = /\b(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\bfrom\s+)?['"]\.\/([^'"]+)['"]/g;
  const dynamics = /\bimport\(\s*['"]\.\/([^'"]+)['"]\s*\)/g;
  for (const match of code.matchAll(statics)) found.add(match[1]!);
  for (const match of code.matchAll(dynamics)) found.add(match[1]!);
  return [...found].sort();
}

function importGraph(dir: string): Graph {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  return new Map(files.map((f) => [f, localImports(readFileSync(dir + f, 'utf8')).filter((i) => files.includes(i))]));
}

/** Each cycle once, as `a.ts → b.ts → a.ts`, starting from its alphabetically first module. */
function findCycles(graph: Graph): string[] {
  const cycles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.add(named(path.slice(path.indexOf(next))));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return [...cycles].sort();
}

function named(cycle: string[]): string {
  const first = cycle.indexOf([...cycle].sort()[0]!);
  const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
  return [...rotated, rotated[0]].join(' → ');
}

describe('module order', () => {
  it('finds cycles and names them (the check can fail)', () => {
    const graph: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(findCycles(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
    expect(
      localImports("import type { X } from './x.ts';\nexport { y } from './y.ts';\nconst z = await import('./z.ts');"),
    ).toEqual(['x.ts', 'y.ts', 'z.ts']);
  });

  it('src/devserver has no import cycle', () => {
    const graph = importGraph(SOURCE);
    expect(graph.get('workflow-tasks.ts')).toContain('engine.ts'); // the parser sees the imports
    expect(findCycles(graph)).toEqual([]);
  });
});
