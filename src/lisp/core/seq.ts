/**
 * Sequence functions: access, slicing, transforming, ordering, building and generating
 * sequences. Clojure semantics throughout (see docs/language.md for the few deliberate
 * differences).
 *
 * Result types follow Clojure: functions that return a seq in Clojure (`map`, `filter`,
 * `rest`, `take`, `sort`, ...) return a {@link PList} (printed `(..)`); `mapv`, `filterv`,
 * `vec`, `into []`, `subvec` return vectors. When an input is a {@link LazySeq}
 * (`(range)`, `iterate`, `repeat`, `cycle`), the transforming functions return lazy seqs
 * so `(take 5 (map inc (range)))` works; consumers that stop early never realise more.
 * Realising more than the collection-size limit is a `limit_exceeded` error.
 *
 * The functions live in modules by area; this one merges their tables (in the order of
 * the language reference) and re-exports what the rest of the core library uses.
 */
import { type CoreTable } from './registry.ts';
import { accessFns } from './seq-access.ts';
import { buildFns } from './seq-build.ts';
import { stepFns } from './seq-common.ts';
import { generateFns } from './seq-generate.ts';
import { groupFns } from './seq-group.ts';
import { orderFns } from './seq-order.ts';
import { transformFns } from './seq-transform.ts';
import { withTransducerArities } from './transducers.ts';

export { conjAll, toVector } from './seq-build.ts';
export { eagerList, eagerVector, itemsArray, lazyFrom } from './seq-common.ts';
export { mapEntry } from './seq-generate.ts';
export { compareValues, getPath, keyFnOf } from './seq-order.ts';

const sequenceFns: CoreTable = { ...accessFns, ...transformFns, ...buildFns, ...orderFns, ...groupFns, ...generateFns };

/** Every sequence function, with the transducer arities (see transducers.ts). */
export const seqFns: CoreTable = withTransducerArities(sequenceFns);
Object.assign(stepFns, seqFns);
