/**
 * A plan as a picture: its steps as boxes in layers (a step sits one layer below the
 * last of its dependencies), arrows from each dependency, each box coloured by the
 * step's status and linking to the step's row. Inline SVG built on the server (no
 * script, no external asset); the page's live reload recolours it.
 */
import type { Step } from '../../plans/schema.ts';
import { type Fragment, html } from '../html.ts';

const W = 168;
const H = 46;
const GAP_X = 24;
const GAP_Y = 40;
const PAD = 8;

interface Placed {
  step: Step;
  x: number;
  y: number;
}

/** Each step's layer: 0 for steps without dependencies, else one more than its deepest dependency. */
export function layersOf(steps: readonly Step[]): Map<string, number> {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const layer = new Map<string, number>();
  const visit = (s: Step, path: Set<string>): number => {
    const known = layer.get(s.id);
    if (known !== undefined) return known;
    if (path.has(s.id)) return 0; // a cycle (the validator refuses them): stop here
    path.add(s.id);
    const deps = s.dependsOn.map((d) => byId.get(d)).filter((d): d is Step => d !== undefined);
    const l = deps.length ? Math.max(...deps.map((d) => visit(d, path))) + 1 : 0;
    path.delete(s.id);
    layer.set(s.id, l);
    return l;
  };
  for (const s of steps) visit(s, new Set());
  return layer;
}

function place(steps: readonly Step[]): { placed: Map<string, Placed>; width: number; height: number } {
  const layer = layersOf(steps);
  const rows: Step[][] = [];
  for (const s of steps) (rows[layer.get(s.id)!] ??= []).push(s);
  const widest = Math.max(1, ...rows.map((r) => r.length));
  const width = PAD * 2 + widest * W + (widest - 1) * GAP_X;
  const placed = new Map<string, Placed>();
  rows.forEach((row, r) => {
    // each row centred
    const rowWidth = row.length * W + (row.length - 1) * GAP_X;
    const left = (width - rowWidth) / 2;
    row.forEach((step, i) => placed.set(step.id, { step, x: left + i * (W + GAP_X), y: PAD + r * (H + GAP_Y) }));
  });
  return { placed, width, height: PAD * 2 + rows.length * H + (rows.length - 1) * GAP_Y };
}

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const STATUS_WORDS: Partial<Record<Step['status'], string>> = {
  awaiting_approval: 'waiting for you',
  awaiting_answer: 'waiting for you',
};

/** The plan's steps and dependencies as an SVG picture. */
export function dagPicture(steps: readonly Step[]): Fragment | string {
  if (!steps.length) return '';
  const { placed, width, height } = place(steps);
  const edges = steps.flatMap((s) =>
    s.dependsOn.flatMap((d) => {
      const from = placed.get(d);
      const to = placed.get(s.id)!;
      if (!from) return [];
      const [x1, y1, x2, y2] = [from.x + W / 2, from.y + H, to.x + W / 2, to.y];
      const mid = (y1 + y2) / 2;
      return [
        html`<path class="edge" d="M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2 - 4}" marker-end="url(#arrow)" />`,
      ];
    }),
  );
  const nodes = [...placed.values()].map(({ step, x, y }) => {
    const shown = short(step.id, 22);
    const status = STATUS_WORDS[step.status] ?? step.status.replace(/_/g, ' ');
    // the name starts with the box's visible words (a voice user says what they see), then the description
    return html`<a href="#step-${step.id}" class="node s-${step.status}" data-step="${step.id}" aria-label="${shown} ${status}: ${step.description}">
      <title>${step.description}</title>
      <rect x="${x}" y="${y}" width="${W}" height="${H}" rx="6" />
      <text x="${x + 10}" y="${y + 19}" class="id">${shown}</text>
      <text x="${x + 10}" y="${y + 36}" class="st">${status}</text>
    </a>`;
  });
  return html`<figure class="dag"><svg viewBox="0 0 ${width} ${height}" width="${width}" role="group" aria-label="The plan's steps and what each waits for">
      <defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="8" markerHeight="8" orient="auto"><path d="M0,0 L8,4 L0,8 z" /></marker></defs>
      ${edges}${nodes}
    </svg><figcaption>Each box is a step, below the steps it waits for; the colour is its status. Select a box to open the step.</figcaption></figure>`;
}
