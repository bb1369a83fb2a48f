#!/usr/bin/env node
// The navigator CLI. From the published package it runs the compiled JavaScript in
// dist/; in this repository it runs the TypeScript sources through tsx, so that
// `npm install` is the only set-up step.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli.js', import.meta.url);
const fromSources = new URL('../cli.ts', import.meta.url);
if (existsSync(fromSources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(fromSources.href);
} else {
  await import(compiled.href);
}
