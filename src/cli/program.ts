/**
 * Assembles the `navigator` command from one module per command. A command's module
 * pulls in what it needs (the Temporal client, the worker, the dev server, the console),
 * so only the command named on the command line is loaded: loading every module took
 * 2.5 s before any command ran, `navigator eval` alone needs 1 s. Help, an unknown
 * command or no command load them all, so listings and suggestions stay complete.
 */
import { Command } from 'commander';

type Loader = () => Promise<Command>;

/** Every top-level command, in the order help lists them. */
const COMMANDS: Record<string, Loader> = {
  run: async () => (await import('./commands/mission/run.ts')).runCommand,
  approve: async () => (await import('./commands/mission/messages.ts')).approveCommand,
  reject: async () => (await import('./commands/mission/messages.ts')).rejectCommand,
  decide: async () => (await import('./commands/mission/messages.ts')).decideCommand,
  write: async () => (await import('./commands/mission/messages.ts')).writeCommand,
  'reset-task': async () => (await import('./commands/mission/messages.ts')).resetTaskCommand,
  cancel: async () => (await import('./commands/mission/messages.ts')).cancelCommand,
  effect: async () => (await import('./commands/mission/effect.ts')).effectCommand,
  status: async () => (await import('./commands/mission/inspect.ts')).statusCommand,
  journal: async () => (await import('./commands/mission/inspect.ts')).journalCommand,
  progress: async () => (await import('./commands/mission/inspect.ts')).progressCommand,
  ledger: async () => (await import('./commands/mission/inspect.ts')).ledgerCommand,
  watch: async () => (await import('./commands/mission/inspect.ts')).watchCommand,
  history: async () => (await import('./commands/mission/history.ts')).historyCommand,
  audit: async () => (await import('./commands/mission/history.ts')).auditCommand,
  list: async () => (await import('./commands/mission/inspect.ts')).listCommand,
  replay: async () => (await import('./commands/mission/history.ts')).replayCommand,
  worker: async () => (await import('./commands/worker.ts')).workerCommand,
  agent: async () => (await import('./commands/agent.ts')).agentCommand,
  dev: async () => (await import('./commands/dev.ts')).devCommand,
  eval: async () => (await import('./commands/eval.ts')).evalCommand,
  demo: async () => (await import('./commands/demo.ts')).demoCommand,
  plan: async () => (await import('./commands/plan/plan.ts')).planCommand,
  'codec-server': async () => (await import('./commands/codec-server.ts')).codecServerCommand,
  console: async () => (await import('./commands/console.ts')).consoleCommand,
  resume: async () => (await import('./commands/mission/resume.ts')).resumeCommand,
  schedule: async () => (await import('./commands/mission/schedule.ts')).scheduleCommand,
  store: async () => (await import('./commands/store.ts')).storeCommand,
};

/** Global options that take a value (their value is not the command's name). */
const OPTIONS_WITH_VALUE = new Set(['--codec']);

/** The command `args` (process.argv without node and the script) name, if it is one of ours. */
function commandNamed(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (OPTIONS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return Object.hasOwn(COMMANDS, a) ? a : undefined;
  }
  return undefined;
}

/** The program for `argv` (as process.argv): the command it names, or all of them. */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('navigator')
    .description('Durable LLM Navigator agents on Temporal')
    .option(
      '--codec <module>',
      'payload codec for every client, worker, audit and replay: `aes-gcm` (keys in NAVIGATOR_CODEC_KEYS) or a module exporting a PayloadCodec (or NAVIGATOR_CODEC)',
    )
    .showHelpAfterError()
    .hook('preAction', (cmd) => {
      const codec = cmd.opts<{ codec?: string }>().codec;
      if (codec) process.env.NAVIGATOR_CODEC = codec;
    });
  const named = commandNamed(argv.slice(2));
  const wanted = named !== undefined ? [named] : Object.keys(COMMANDS);
  for (const name of wanted) program.addCommand(await COMMANDS[name]!());
  return program;
}
