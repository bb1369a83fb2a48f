/** Reading CLI inputs: files, stdin, JSON, modules. Every failure is a CliError. */
import { readFile } from 'node:fs/promises';
import { importUserModule } from '../user-module.ts';
import { CliError } from './errors.ts';

export async function readText(file: string): Promise<string> {
  if (file === '-') return readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 2);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${what} is not valid JSON: ${(err as Error).message}`, 2);
  }
}

/** A word a shell passes without quotes: letters, digits, `_`, `-`, `.`, starting with a letter. */
export const isBareWord = (text: string): boolean => /^[A-Za-z][\w.-]*$/.test(text);

/**
 * A value typed on the command line: JSON, or a bare word taken as that string
 * (`approved` for `'"approved"'`); the contract it is written to says whether it fits.
 */
export function parseValue(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (isBareWord(text)) return text;
    throw new CliError(
      `${what} is not valid JSON (a text with spaces needs JSON quotes: '"${text.replace(/'/g, '')}"'): ${(err as Error).message}`,
      2,
    );
  }
}

export async function readJsonFile(file: string, what: string): Promise<unknown> {
  return parseJson(await readText(file), `${what} (${file})`);
}

/** Imports a JS/TS module by path (relative to the working directory) or package name. */
export async function importModule(spec: string): Promise<Record<string, unknown>> {
  try {
    return await importUserModule(spec);
  } catch (err) {
    throw new CliError(`cannot load module ${spec}: ${(err as Error).message}`, 2);
  }
}

export function parsePositiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${flag} must be a positive integer, got ${value}`, 2);
  return n;
}

/** Histories exported as JSON (one, or a list for a chain); a file that is not one is a CliError. */
export async function readHistoryFile(file: string): Promise<import('../history/fetch.ts').RunHistory[]> {
  const { historiesFromJson } = await import('../history/fetch.ts');
  const text = await readText(file);
  try {
    return historiesFromJson(text, file);
  } catch (err) {
    throw new CliError((err as Error).message, 2);
  }
}
