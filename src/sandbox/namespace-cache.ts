/**
 * Namespaces a sandbox thread has read, kept for the next program of the same mission:
 * a pass runs several programs on one namespace, and reading an entry back (read,
 * analyze, evaluate) is most of what the thread adds to a program. An entry is taken
 * from here only when reading it again would give the same value:
 *
 * - the same mission (the cache is keyed by its run id: one mission's entries are never
 *   offered to another, even for the same source) and the same limits and tool names
 *   (reading checks tool calls and spends fuel under them);
 * - the same source, and the names around it in the same order (an entry evaluated while
 *   reading sees the entries before it);
 * - no name that came, went or changed appears in its source: analysis resolves a
 *   symbol against the record's names (a new def may shadow a core function) and an
 *   entry such as `(partial f 1)` holds the value `f` had when it was read. Entries that
 *   mention an entry read again are read again too, transitively. A name that is a core
 *   function or special form coming or going reads everything again (the analyzer's own
 *   rewrites name those without the source saying so).
 *
 * Bounded: at most `maxMissions` namespaces and `maxChars` characters of source, the
 * least recently used dropped first. A thread that is terminated loses its cache and the
 * next program simply reads everything, as without one. Values are immutable, so one
 * read value may serve many programs.
 */
import { SPECIAL_FORMS } from '../lisp/analyzer/syntax.ts';
import type { Namespace } from '../lisp/api.ts';
import { lookupCore } from '../lisp/core/builtins.ts';
import type { Value } from '../lisp/values.ts';

interface Kept {
  /** limits and tool names the entries were read under */
  context: string;
  /** names of the record, in its order */
  names: string[];
  entries: Map<string, { source: string; value: Value }>;
  chars: number;
}

export interface NamespaceCacheStats {
  missions: number;
  chars: number;
}

export class NamespaceCache {
  private readonly kept = new Map<string, Kept>();
  private chars = 0;

  constructor(
    readonly maxMissions = 16,
    readonly maxChars = 8_000_000,
  ) {}

  /** Entries of `rec` that may be taken as read before (see the module comment). */
  reusable(mission: string, context: string, rec: Readonly<Record<string, string>>): Map<string, Value> {
    const out = new Map<string, Value>();
    const k = this.kept.get(mission);
    if (!k || k.context !== context) return out;
    this.touch(mission, k);
    const names = Object.keys(rec);
    if (!sameOrder(k.names, names)) return out;
    const before = new Set(k.names);
    const now = new Set(names);
    const cameOrWent = [...names.filter((n) => !before.has(n)), ...k.names.filter((n) => !now.has(n))];
    if (cameOrWent.some(isCoreName)) return out;
    const dirty = new Set(cameOrWent);
    for (const n of names) if (k.entries.get(n)?.source !== rec[n]) dirty.add(n);
    let fresh = [...dirty];
    while (fresh.length > 0) {
      const next: string[] = [];
      for (const n of names) {
        if (!dirty.has(n) && fresh.some((d) => rec[n]!.includes(d))) {
          dirty.add(n);
          next.push(n);
        }
      }
      fresh = next;
    }
    for (const n of names) if (!dirty.has(n)) out.set(n, k.entries.get(n)!.value);
    return out;
  }

  /** Remembers what `rec` read to (`ns`: every entry of `rec`, as read). */
  keep(mission: string, context: string, rec: Readonly<Record<string, string>>, ns: Namespace): void {
    this.drop(mission);
    const names = Object.keys(rec);
    let chars = 0;
    for (const n of names) chars += rec[n]!.length;
    if (chars > this.maxChars || names.some((n) => !ns.has(n))) return;
    const entries = new Map(names.map((n) => [n, { source: rec[n]!, value: ns.get(n)! }]));
    this.kept.set(mission, { context, names, entries, chars });
    this.chars += chars;
    for (const [oldest] of this.kept) {
      if (this.kept.size <= this.maxMissions && this.chars <= this.maxChars) break;
      this.drop(oldest);
    }
  }

  /** Forgets a mission's namespace. */
  drop(mission: string): void {
    const k = this.kept.get(mission);
    if (!k) return;
    this.kept.delete(mission);
    this.chars -= k.chars;
  }

  clear(): void {
    this.kept.clear();
    this.chars = 0;
  }

  has(mission: string): boolean {
    return this.kept.has(mission);
  }

  stats(): NamespaceCacheStats {
    return { missions: this.kept.size, chars: this.chars };
  }

  /** Most recently used last (Map order). */
  private touch(mission: string, k: Kept): void {
    this.kept.delete(mission);
    this.kept.set(mission, k);
  }
}

/** The names both records have are in the same order in both. */
function sameOrder(before: readonly string[], now: readonly string[]): boolean {
  const inNow = new Set(now);
  const inBefore = new Set(before);
  const a = before.filter((n) => inNow.has(n));
  const b = now.filter((n) => inBefore.has(n));
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

const isCoreName = (n: string): boolean =>
  SPECIAL_FORMS.has(n) || lookupCore(null, n) !== undefined || n.startsWith('.');

/**
 * What reading an entry depends on besides its source and names: the limits and the
 * tool names (a call to a tool that is not there does not analyze).
 */
export function readingContext(limits: object, toolNames: readonly string[]): string {
  return JSON.stringify([limits, [...toolNames].sort()]);
}
