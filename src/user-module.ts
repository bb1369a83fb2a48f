/**
 * Importing a module the user names (agents, tools, a payload codec): a path relative to
 * the working directory, or a package name. The compiled package runs on plain Node, which
 * cannot import TypeScript; a `.ts` module is loaded through tsx's loader, registered once
 * and only then. (Running from this repository's sources, tsx is already registered.)
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

let tsxRegistered: Promise<void> | undefined;

function registerTsx(): Promise<void> {
  tsxRegistered ??= import('tsx/esm/api').then(({ register }) => void register());
  return tsxRegistered;
}

export async function importUserModule(spec: string): Promise<Record<string, unknown>> {
  const target = spec.startsWith('.') || spec.startsWith('/') ? pathToFileURL(resolve(spec)).href : spec;
  if (/\.[cm]?ts$/.test(spec) && !import.meta.url.endsWith('.ts')) await registerTsx();
  return (await import(target)) as Record<string, unknown>;
}
