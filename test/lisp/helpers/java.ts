/**
 * Java on the PATH as an oracle: {@link javaValues} runs Java expressions in one
 * `java Cases.java` process and gives each one's `String.valueOf`, one line each.
 * Tests using it are skipped when {@link hasJava} is false.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../src/lisp/index.ts';
import { strOf } from '../../../src/lisp/printer/index.ts';

export const hasJava = spawnSync('java', ['-version'], { encoding: 'utf8' }).status === 0;

/** `String.valueOf` of each expression, in order; `imports` are Java import lines. */
export function javaValues(imports: readonly string[], expressions: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'java-cases-'));
  const file = join(dir, 'Cases.java');
  writeFileSync(
    file,
    [
      ...imports,
      'import java.util.function.Supplier;',
      'public class Cases {',
      '  static void out(Supplier<Object> f) { System.out.println(String.valueOf(f.get())); }',
      '  public static void main(String[] args) {',
      ...expressions.map((java) => `    out(() -> ${java});`),
      '  }',
      '}',
    ].join('\n'),
  );
  const r = spawnSync('java', [file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`java failed: ${r.stderr}`);
  return r.stdout.trimEnd().split('\n');
}

/**
 * Each PTC-Lisp program's value printed with `str` (or `error: message`) beside what its
 * Java expression gives: the cases where they differ, each with both values.
 */
export async function javaDifferences(
  cases: ReadonlyArray<readonly [program: string, java: string]>,
  imports: readonly string[],
): Promise<string[]> {
  const java = javaValues(
    imports,
    cases.map(([, j]) => j),
  );
  if (java.length !== cases.length) throw new Error(`java printed ${java.length} lines for ${cases.length} cases`);
  const differ: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const r = await run(cases[i]![0]);
    const ours = r.status === 'ok' ? strOf(r.value) : `error: ${r.status === 'error' ? r.error.message : r.status}`;
    if (ours !== java[i]) differ.push(`${cases[i]![0]}\n  ours: ${ours}\n  java: ${java[i]}`);
  }
  return differ;
}
