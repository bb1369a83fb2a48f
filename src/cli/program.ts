/** Assembles the `navigator` command from one module per command. */
import { Command } from 'commander';
import { evalCommand } from './commands/eval.ts';
import { devCommand } from './commands/dev.ts';
import { demoCommand } from './commands/demo.ts';

export function buildProgram(): Command {
  return new Command('navigator')
    .description('Durable LLM Navigator agents on Temporal')
    .showHelpAfterError()
    .addCommand(evalCommand)
    .addCommand(devCommand)
    .addCommand(demoCommand);
}
