/**
 * Modules loaded once per worker thread and shared by every workflow run it caches
 * (`bundleWorkflowCode`'s `preloadModules`: workflowPreloadModules in
 * src/workflows/path.ts). The SDK loads the other modules of the bundle anew for each
 * run, so each waiting mission kept its own copy of every library the workflow code
 * imports (Immutable, re2js, the PTC-Lisp reader and printer): about 190 KB of its heap.
 * (OpenTelemetry, the other large part, is loaded only by a run started with a trace:
 * src/telemetry/workflow-tracing.ts.)
 *
 * Only modules without per-run state belong here: functions, classes and constant tables,
 * caches of pure results (interned keywords, compiled regexes). The SDK freezes their
 * exports. They must not use workflow APIs, the clock or randomness when they load (they
 * load before any run exists). A run that imports one of them gets the shared instance; a
 * bundle made without this preload loads them per run as before: the same values either way.
 */
import './preload-random.ts';
import * as immutable from 'immutable';
import * as re2js from 're2js';
import * as values from '../lisp/values.ts';
import * as errors from '../lisp/errors.ts';
import * as regex from '../lisp/regex.ts';
import * as reader from '../lisp/reader/index.ts';
import * as print from '../lisp/printer/print.ts';
import * as edn from '../lisp/printer/edn.ts';
import * as vectors from '../lisp/vector-of-array.ts';
import * as missionLog from '../navigator/prompt/missionLog.ts';
import * as progress from '../navigator/prompt/progress.ts';
import * as resultShape from '../navigator/result-shape.ts';
import * as references from '../plans/references.ts';
import * as limits from '../plans/limits.ts';
import * as contract from '../kernel/contract.ts';
import * as failures from '../kernel/failures.ts';
import { restoreRandom } from './preload-random.ts';

restoreRandom();

/** Referenced so the bundler keeps every import above. */
export const sharedModules: readonly object[] = [
  immutable,
  re2js,
  values,
  errors,
  regex,
  reader,
  print,
  edn,
  vectors,
  missionLog,
  progress,
  resultShape,
  references,
  limits,
  contract,
  failures,
];
