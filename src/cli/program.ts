/** Assembles the `navigator` command from one module per command. */
import { Command } from 'commander';
import { agentCommand } from './commands/agent.ts';
import { codecServerCommand } from './commands/codec-server.ts';
import { consoleCommand } from './commands/console.ts';
import { demoCommand } from './commands/demo.ts';
import { devCommand } from './commands/dev.ts';
import { evalCommand } from './commands/eval.ts';
import { auditCommand, historyCommand, replayCommand } from './commands/history.ts';
import { journalCommand, ledgerCommand, listCommand, progressCommand, statusCommand, watchCommand } from './commands/inspect.ts';
import { approveCommand, cancelCommand, decideCommand, rejectCommand, resetTaskCommand, writeCommand } from './commands/messages.ts';
import { planCommand } from './commands/plan.ts';
import { resumeCommand } from './commands/resume.ts';
import { runCommand } from './commands/run.ts';
import { scheduleCommand } from './commands/schedule.ts';
import { workerCommand } from './commands/worker.ts';

export function buildProgram(): Command {
  const program = new Command('navigator')
    .description('Durable LLM Navigator agents on Temporal')
    .option('--codec <module>', 'payload codec for every client, worker, audit and replay: `aes-gcm` (keys in NAVIGATOR_CODEC_KEYS) or a module exporting a PayloadCodec (or NAVIGATOR_CODEC)')
    .showHelpAfterError()
    .hook('preAction', (cmd) => {
      const codec = cmd.opts<{ codec?: string }>().codec;
      if (codec) process.env.NAVIGATOR_CODEC = codec;
    });
  for (const command of [
    runCommand,
    approveCommand,
    rejectCommand,
    decideCommand,
    writeCommand,
    resetTaskCommand,
    cancelCommand,
    statusCommand,
    journalCommand,
    progressCommand,
    ledgerCommand,
    watchCommand,
    historyCommand,
    auditCommand,
    listCommand,
    replayCommand,
    workerCommand,
    agentCommand,
    devCommand,
    evalCommand,
    demoCommand,
    planCommand,
    codecServerCommand,
    consoleCommand,
    resumeCommand,
    scheduleCommand,
  ]) {
    program.addCommand(command);
  }
  return program;
}
