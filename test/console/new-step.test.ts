/** The new-step form's reading: the step it sends, and where the plan validator's problems go. */
import { describe, expect, it } from 'vitest';
import { StepFieldsProblem, refusedAdding, stepFromForm } from '../../src/console/plan/new-step.ts';
import { validatePlan } from '../../src/plans/validate.ts';
import { catalogOf } from '../../src/plans/catalog.ts';
import labAgents from '../plans/fixtures/lab-agents.ts';

const labCatalog = catalogOf(new Map(Object.values(labAgents).map((e) => [e.agent.name, e])), labAgents.lab);

const form = (fields: Record<string, unknown>) => ({
  _csrf: 'x',
  what: 'add-fields',
  tool: 'make_list',
  id: 'more',
  description: ' more items ',
  ...fields,
});

describe('the new-step form', () => {
  it('sends the tool, the fields as args, the steps ticked as dependencies, and approval only when chosen', () => {
    expect(stepFromForm(form({ 'f:integer:n': '3', dependsOn: ['list', 'flag'] }))).toEqual({
      id: 'more',
      description: 'more items',
      tool: 'make_list',
      args: { n: 3 },
      dependsOn: ['list', 'flag'],
    });
    expect(stepFromForm(form({ 'f:integer:n': '3', dependsOn: 'list', requiresApproval: 'false' }))).toMatchObject({
      dependsOn: ['list'],
      requiresApproval: false,
    });
    // the args as JSON win over the fields
    expect(stepFromForm(form({ 'f:integer:n': '3', args: '{"n": 4}' })).args).toEqual({ n: 4 });
  });

  it('refuses a field that is not what it takes, keeping what was typed', () => {
    const refused = (() => {
      try {
        stepFromForm(form({ 'f:integer:n': 'many' }));
      } catch (err) {
        return err;
      }
    })() as StepFieldsProblem;
    expect(refused).toBeInstanceOf(StepFieldsProblem);
    expect(refused.adding).toMatchObject({
      tool: 'make_list',
      typed: { n: 'many' },
      problems: { n: '"many" is not a number' },
    });
    expect(() => stepFromForm(form({ args: '{n' }))).toThrow(/^the args of the new step are not JSON/);
  });

  it("puts the validator's problems at the fields of the new step they name", () => {
    const existing = { id: 'list', description: 'make a list', tool: 'make_list', args: { n: 2 } };
    const sent = form({ id: '', 'f:integer:n': '500', dependsOn: ['nope'] });
    const problems = validatePlan([existing, stepFromForm(sent)], labCatalog);
    const adding = refusedAdding(sent, problems);
    expect(adding.stepProblems?.id).toMatch(/^id: /);
    expect(adding.typed).toEqual({ n: 500 });
    const valid = form({ 'f:integer:n': '500', dependsOn: ['nope'] });
    const at = refusedAdding(valid, validatePlan([existing, stepFromForm(valid)], labCatalog));
    expect(at.problems).toEqual({ n: 'args.n: Too big: expected number to be <=100' });
    expect(at.stepProblems?.dependsOn).toMatch(/nope/);
  });
});
