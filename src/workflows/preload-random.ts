/**
 * A fixed `Math.random` while the shared modules load (shared-modules.ts imports this
 * first): they load when the worker makes its V8 context, where no workflow runs and the
 * SDK's `Math.random` (the run's seeded generator) throws. Immutable draws one number when
 * it loads (the seed of its hash-collision buckets, used by its maps, which nothing here
 * uses). {@link restoreRandom} puts the SDK's back before any workflow runs.
 */
const sdkRandom = Math.random;
Math.random = () => 0.5;

export function restoreRandom(): void {
  Math.random = sdkRandom;
}
