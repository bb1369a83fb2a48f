/**
 * `navigator demo` (what `npm start` runs): a complete example on a fresh machine with
 * no other set-up.
 */
import { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { run } from '../../lisp/index.ts';
import { prStr } from '../../lisp/printer/index.ts';
import { action } from '../errors.ts';

const programPath = fileURLToPath(new URL('../../../examples/programs/orders.clj', import.meta.url));

export const demoCommand = new Command('demo')
  .description('run the bundled example end to end')
  .action(
    action(async () => {
      const source = await readFile(programPath, 'utf8');
      process.stdout.write(`Running ${programPath} through the PTC-Lisp interpreter\n\n${source}\n`);
      const first = await run(source, { journal: new Map() });
      if (first.status !== 'ok') throw new Error(`example failed: ${first.status === 'error' ? first.error.toLine() : first.status}`);
      for (const line of first.prints) process.stdout.write(`printed: ${line}\n`);
      process.stdout.write(`value:   ${prStr(first.value)}\njournal: ${JSON.stringify(Object.fromEntries(first.journal!))}\n`);
      const second = await run(source, { journal: first.journal });
      process.stdout.write(`second run with that journal: same value = ${second.status === 'ok' && prStr(second.value) === prStr(first.value)}, task served from the journal\n`);
    }),
  );
