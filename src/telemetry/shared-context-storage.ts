/**
 * One AsyncLocalStorage for the OpenTelemetry context of every workflow run in a worker's
 * reusable V8 context (preloaded: see {@link workflowPreloadModules} in setup.ts).
 *
 * Why: Temporal's workflow tracing interceptors keep the active OpenTelemetry context in
 * an AsyncLocalStorage of their own, one per workflow run (their module is loaded anew for
 * each run). Under Node 20, every enabled AsyncLocalStorage of a thread writes a property
 * on every promise the thread creates (async_hooks' `kResourceStore`), whichever run the
 * promise belongs to. With N missions cached, each promise carries N properties: a waiting
 * mission's promises grew with the number of missions beside it (1.2 MB per waiting
 * mission at 200 of them, more at 1,000), and every promise cost N writes.
 *
 * The SDK's own scopes (cancellation, update) already use one storage each for all runs,
 * created when the context is made; this is the same for the tracing context. What a run
 * reads from it is what it read from its own: a store is set on the promises a run creates
 * inside `run`, and each run's activations start from the worker's own resources, where no
 * run's store is left (`run` restores the store it replaced before it returns).
 *
 * Not preloaded (a bundle made without the preload list), the module is loaded per run
 * like any other and each run gets its own storage, as before: the same values either way.
 */

interface Storage {
  run<R>(store: unknown, fn: (...args: unknown[]) => R, ...args: unknown[]): R;
  getStore(): unknown;
}

type StorageClass = new (name?: string) => Storage;

// Created when the module is first evaluated: when preloaded, before any workflow run
// exists, so the SDK disables it with the context, not with a run.
const Ctor = (globalThis as { AsyncLocalStorage?: StorageClass }).AsyncLocalStorage;
const storage: Storage | undefined = Ctor ? new Ctor('navigator-otel-context') : undefined;

/**
 * The shared storage (a function, not an exported value: a preloaded module's exports are
 * frozen by the SDK, and a frozen storage could not be enabled).
 */
export function sharedContextStorage(): Storage | undefined {
  return storage;
}
