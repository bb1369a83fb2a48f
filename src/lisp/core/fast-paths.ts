/**
 * The switch of the core library's fast paths (array-backed lists walked by index,
 * eager map/filter/reduce, ...). Always on in programs; the property tests turn it off to
 * compare each fast path with the general path it stands for.
 */
export const fastPaths = { on: true };
