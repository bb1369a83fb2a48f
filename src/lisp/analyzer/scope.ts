import type { Capture } from './nodes.ts';

/** The locals of one function (or of the top level): a stack of name → slot. */
export class Scope {
  private readonly names: string[] = [];
  private readonly slots: number[] = [];
  readonly captures: Capture[] = [];
  private readonly captured = new Map<string, number>();
  size = 0;

  constructor(readonly parent: Scope | null) {}

  alloc(): number {
    return this.size++;
  }

  bind(name: string, slot: number): void {
    this.names.push(name);
    this.slots.push(slot);
  }

  mark(): number {
    return this.names.length;
  }

  reset(mark: number): void {
    this.names.length = mark;
    this.slots.length = mark;
  }

  lookup(name: string): number | undefined {
    for (let i = this.names.length - 1; i >= 0; i--) if (this.names[i] === name) return this.slots[i];
    const c = this.captured.get(name);
    if (c !== undefined) return c;
    if (!this.parent) return undefined;
    const outer = this.parent.lookup(name);
    if (outer === undefined) return undefined;
    const slot = this.alloc();
    this.captures.push({ name, outer, slot });
    this.captured.set(name, slot);
    return slot;
  }
}
