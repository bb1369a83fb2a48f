/**
 * One place that turns failures into a one-line message and an exit code, so every
 * command reports bad input the same way.
 */
import { ZodError } from 'zod';

/** A user-facing CLI failure: printed as one line, exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function formatZodError(err: ZodError): string {
  return err.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/** Prints `navigator: <message>` on stderr and exits non-zero. */
export function handleError(err: unknown): never {
  if (err instanceof CliError) {
    process.stderr.write(`navigator: ${err.message}\n`);
    process.exit(err.exitCode);
  }
  if (err instanceof ZodError) {
    process.stderr.write(`navigator: invalid input: ${formatZodError(err)}\n`);
    process.exit(2);
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`navigator: ${message}\n`);
  process.exit(1);
}

/** Wraps a command action so any failure goes through {@link handleError}. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void) {
  return async (...args: A): Promise<void> => {
    try {
      await fn(...args);
    } catch (err) {
      handleError(err);
    }
  };
}
