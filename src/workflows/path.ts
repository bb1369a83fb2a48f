/** Where the workflow code is, for bundling and replay: `.ts` in this repository, `.js` in the package. */
import { fileURLToPath } from 'node:url';

const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export const workflowsPath = fileURLToPath(new URL(`./index.${ext}`, import.meta.url));

/**
 * Preloaded into the worker's V8 context (`bundleWorkflowCode`'s `preloadModules`) and shared
 * by every cached workflow run instead of loaded per run: the libraries the workflow code
 * uses (src/workflows/shared-modules.ts) and the storage of the tracing context
 * (src/telemetry/shared-context-storage.ts). Most of what a waiting mission costs a worker
 * without them. A bundle made without them runs the same, with a copy per run.
 */
export const workflowPreloadModules: readonly string[] = [
  fileURLToPath(new URL(`../telemetry/shared-context-storage.${ext}`, import.meta.url)),
  fileURLToPath(new URL(`./shared-modules.${ext}`, import.meta.url)),
];
