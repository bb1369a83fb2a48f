/**
 * Fuel: every node evaluated takes one unit from `ev.ticks`; where that reaches 0,
 * `ev.slowCheck()` moves the next chunk of the program's fuel into it (or throws when the
 * fuel or the time is spent) and reads the clock. The closures (closures/), the generated JS
 * (js/) and WebAssembly (wasm/) all charge by this rule, so a program runs out of fuel at
 * the same node whichever back-end ran it.
 */

/** Fuel units between the closures' fuel and clock checks. */
export const CHECK_EVERY = 4096;

/**
 * The source of the closures' charge of `units` (the node and the operands charged with it):
 * the one place the fuel rule is written for the generated arithmetic closures
 * (closures/arithmetic.ts).
 */
export function chargeSource(units: number): string {
  return units === 1 ? 'if (--ev.ticks <= 0) ev.slowCheck();' : `if ((ev.ticks -= ${units}) <= 0) ev.slowCheck();`;
}
