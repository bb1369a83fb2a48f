/** The for-each item a person names in a verdict: one parser for the CLI and the console. */
import { describe, expect, it } from 'vitest';
import { parseItem } from '../../src/client/plan/client.ts';

describe('parseItem', () => {
  it('takes a whole number >= 0', () => {
    expect(parseItem('0')).toBe(0);
    expect(parseItem('12')).toBe(12);
  });
  it.each(['', ' ', '-1', '1.5', 'two', 'NaN', '1e400'])('refuses %j, saying what was typed', (text) => {
    expect(() => parseItem(text)).toThrow(`item: expected a whole number >= 0, got ${JSON.stringify(text)}`);
  });
});
