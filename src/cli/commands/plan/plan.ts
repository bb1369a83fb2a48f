/**
 * `navigator plan ...`: the command assembled from its subcommands, in the order `--help`
 * lists them. They live by area: start.ts (validate, create, start), review.ts (review and
 * decisions), read.ts (show, watch, export, versions, ledger, audit). Every command is a
 * thin user of the plan client (src/client/plan/client.ts).
 */
import { Command } from 'commander';
import { create, start, validate } from './start.ts';
import {
  add,
  answer,
  approve,
  approveStep,
  cancel,
  denyStep,
  edit,
  regenerate,
  remove,
  reorder,
  skip,
} from './review.ts';
import { audit, exportCommand, ledger, show, versions, watch } from './read.ts';

export const planCommand = new Command('plan')
  .description('structured plans: a DAG of tool steps, reviewed, then run with approvals')
  .addCommand(validate)
  .addCommand(create)
  .addCommand(start)
  .addCommand(show)
  .addCommand(edit)
  .addCommand(skip)
  .addCommand(add)
  .addCommand(remove)
  .addCommand(reorder)
  .addCommand(regenerate)
  .addCommand(approve)
  .addCommand(approveStep)
  .addCommand(denyStep)
  .addCommand(answer)
  .addCommand(cancel)
  .addCommand(watch)
  .addCommand(versions)
  .addCommand(exportCommand)
  .addCommand(ledger)
  .addCommand(audit);
