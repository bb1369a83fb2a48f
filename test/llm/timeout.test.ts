/** The per-answer model timeout comes from NAVIGATOR_MODEL_TIMEOUT_MS when the caller sets none. */
import { afterEach, describe, expect, it } from 'vitest';
import { modelTimeoutFromEnv, withRetries } from '../../src/llm/providers.ts';

afterEach(() => {
  delete process.env.NAVIGATOR_MODEL_TIMEOUT_MS;
});

describe('model timeout', () => {
  it('reads a positive integer and refuses anything else', () => {
    expect(modelTimeoutFromEnv({})).toBeUndefined();
    expect(modelTimeoutFromEnv({ NAVIGATOR_MODEL_TIMEOUT_MS: '600000' })).toBe(600_000);
    expect(() => modelTimeoutFromEnv({ NAVIGATOR_MODEL_TIMEOUT_MS: '10s' })).toThrow(
      'NAVIGATOR_MODEL_TIMEOUT_MS must be a positive integer (ms), got "10s"',
    );
  });

  it('is what a model call waits for when the caller sets no timeout', async () => {
    process.env.NAVIGATOR_MODEL_TIMEOUT_MS = '50';
    const never = (signal: AbortSignal) =>
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    await expect(withRetries('test:model', never, { maxRetries: 0 })).rejects.toThrow(
      'model test:model: no answer within 50 ms',
    );
  });
});
