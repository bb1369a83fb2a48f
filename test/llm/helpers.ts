import { expect } from 'vitest';
import { LlmError } from '../../src/llm/index.ts';

/** The LlmError a call fails with; the test fails if the call succeeds or throws anything else. */
export async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LlmError);
    return e as LlmError;
  }
  throw new Error('expected the call to fail');
}
