#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so that `npm install` is the only set-up step.
import { register } from 'tsx/esm/api';

register();
await import('../client.ts');
