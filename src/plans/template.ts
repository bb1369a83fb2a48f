/**
 * A plan saved as a document that starts again (`plan export ID [--template]`): the
 * steps as the latest version writes them (authored fields only; steps the reviewer
 * skipped are left out, and so are dependencies on them). As a template the parameters
 * keep their schemas, so each start gives its own values (`--params`); otherwise each
 * schema gets the value the plan ran with as its `default`, so the file starts as is.
 */
import { toSpec } from './build.ts';
import { resultsUsedBy } from './expressions.ts';
import type { Json, Plan, StepSpecInput } from './schema.ts';

export interface ExportedPlan {
  params?: Record<string, Record<string, Json>>;
  steps: StepSpecInput[];
  estimatedDuration?: number;
}

export type Exported = { ok: true; document: ExportedPlan } | { ok: false; message: string };

export function exportPlan(plan: Plan, opts: { template: boolean }): Exported {
  const skipped = new Set(plan.steps.filter((s) => s.skippedBy === 'reviewer').map((s) => s.id));
  const kept = plan.steps.filter((s) => !skipped.has(s.id));
  for (const s of kept) {
    const used = [...resultsUsedBy(s)].find((id) => skipped.has(id));
    if (used)
      return {
        ok: false,
        message: `step ${s.id} uses the result of ${used}, which the reviewer skipped: un-skip it or change ${s.id} before exporting`,
      };
  }
  const steps = kept.map((s) => {
    const spec = toSpec(s);
    return { ...spec, dependsOn: (spec.dependsOn ?? []).filter((d) => !skipped.has(d)) };
  });
  const entries = Object.entries(plan.params ?? {});
  const params = Object.fromEntries(
    entries.map(([name, p]) => [name, opts.template ? p.schema : { ...p.schema, default: p.value }]),
  );
  return {
    ok: true,
    document: {
      ...(entries.length ? { params } : {}),
      steps,
      ...(plan.estimatedDuration !== undefined ? { estimatedDuration: plan.estimatedDuration } : {}),
    },
  };
}
