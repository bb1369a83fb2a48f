/** Where the workflow code is, for bundling and replay: `.ts` in this repository, `.js` in the package. */
import { fileURLToPath } from 'node:url';

const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export const workflowsPath = fileURLToPath(new URL(`../workflows/index.${ext}`, import.meta.url));
