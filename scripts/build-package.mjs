#!/usr/bin/env node
// Builds the published package (run by `npm pack`/`npm publish` through prepack): the
// TypeScript sources compiled to ESM JavaScript with .d.ts in dist/, imports rewritten
// from .ts to .js, and the non-code files the runtime reads (recorded model answers,
// example plans, the sandbox thread's boot file). This repository itself runs the
// TypeScript sources directly and never needs dist/.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unresolvedImports } from './check-dist-imports.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else yield p;
  }
}

// runtime assets next to the code that reads them by import.meta.url
const ASSET = /\.(json|clj|mjs|cjs)$/;
for (const dir of ['src', 'examples']) {
  for (const file of files(join(root, dir))) {
    if (ASSET.test(file)) cpSync(file, join(dist, relative(root, file)));
  }
}

// declarations keep the sources' .ts specifiers; consumers resolve .js
const SPECIFIER = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g;
for (const file of files(dist)) {
  if (!file.endsWith('.d.ts')) continue;
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(SPECIFIER, '$1$2.js$3');
  if (fixed !== text) writeFileSync(file, fixed);
}
// a package whose imports a user's Node would refuse must not be packed
const problems = unresolvedImports(dist, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
if (problems.length) {
  console.error(`dist/ has imports that do not resolve under Node's ESM resolver:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`built ${relative(root, dist)}/`);
