/**
 * The `navigator` CLI. Each command lives in src/cli/commands/ and exports a
 * commander `Command`; this file only assembles them and runs.
 */
import { buildProgram } from './src/cli/program.ts';

await (await buildProgram(process.argv)).parseAsync(process.argv);
