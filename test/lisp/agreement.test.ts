/**
 * Agreement with Clojure, measured: a corpus of programs of the kind models write is run
 * by PTC-Lisp and by nbb (SCI on ClojureScript, a dev dependency) and the printed values
 * compared. ClojureScript is the right reference for PTC-Lisp's one number type: like us
 * it has only doubles (`(/ 10 4)` is 2.5, `(str 1.0)` is "1"). The few places where we
 * differ on purpose are listed in DIFFERENT with the reason (docs/language.md); any
 * other disagreement fails the test with both answers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lisp/index.ts';
import { prStr } from '../../src/lisp/printer/index.ts';
import { CORPUS } from './helpers/corpus.ts';

/**
 * Programs where PTC-Lisp differs from ClojureScript on purpose (docs/language.md), each
 * with what it prints here and why; they are checked to give exactly that.
 */
const DIFFERENT: Record<string, { ours: string; why: string }> = {
  '(str 0.1 " " 1e21 " " 1.5e-7 " " -0.0)': {
    ours: '"0.1 1.0E21 1.5E-7 0"',
    why: 'doubles print as Clojure on the JVM prints them (ClojureScript: 1e+21)',
  },
  '(format "%d items, %.2f total" 3 4.5)': {
    ours: '"3 items, 4.50 total"',
    why: 'format is Clojure (JVM); ClojureScript has none',
  },
  '(pr-str (lazy-seq [1 2]))': {
    ours: 'error: unbound_var',
    why: 'lazy-seq is a macro and PTC-Lisp has none; every sequence function is lazy already',
  },
  '(into (sorted-map) {:b 2 :a 1})': {
    ours: '{:b 2, :a 1}',
    why: 'sorted-map and sorted-set sort when made; what is added later goes at the end, as maps keep insertion order',
  },
  '(int "5")': {
    ours: '53',
    why: 'characters are 1-character strings, so this is (int \\5) = 53 as in Clojure (ClojureScript parses the string)',
  },
  '(try (throw (ex-info "boom" {:code 7})) (catch :default e [(ex-message e) (ex-data e)]))': {
    ours: '["boom" {:code 7}]',
    why: 'ClojureScript needs :default; we accept it too (and Exception/ExceptionInfo)',
  },
};

function nbbPath(): string | undefined {
  const local = join(process.cwd(), 'node_modules/.bin/nbb');
  return existsSync(local) ? local : undefined;
}

/** Every program's printed value (or `error: ...`) from one nbb process. */
function nbbValues(programs: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'agreement-'));
  const file = join(dir, 'corpus.cljs');
  // load-string: a program that does not analyse is an error of its own, not of the file
  const lines = programs.map(
    (p) =>
      `(out (try (pr-str (load-string ${JSON.stringify(`(do ${p})`)})) (catch :default e (str "error: " (ex-message e)))))`,
  );
  writeFileSync(
    file,
    [
      `(require '[clojure.string :as str] '[clojure.set])`,
      `(defn out [s] (println (js/JSON.stringify s)))`,
      ...lines,
    ].join('\n'),
  );
  const r = spawnSync(nbbPath()!, [file], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`nbb failed: ${r.stderr}`);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string);
}

async function ours(program: string): Promise<string> {
  const r = await run(program);
  if (r.status === 'ok') return prStr(r.value);
  return r.status === 'error' ? `error: ${r.error.code}` : r.status;
}

describe.skipIf(!nbbPath())('agreement with ClojureScript (nbb)', () => {
  it('prints the same value for every program of the corpus, except the listed differences', async () => {
    const reference = nbbValues(CORPUS);
    expect(reference).toHaveLength(CORPUS.length);
    const disagreements: string[] = [];
    let agree = 0;
    for (let i = 0; i < CORPUS.length; i++) {
      const program = CORPUS[i]!;
      const mine = await ours(program);
      const known = DIFFERENT[program];
      if (known) {
        if (!mine.startsWith(known.ours)) disagreements.push(`${program}\n  listed as ${known.ours}, now ${mine}`);
        continue;
      }
      if (mine === reference[i]) agree++;
      else disagreements.push(`${program}\n  ours: ${mine}\n  nbb:  ${reference[i]}`);
    }
    console.log(
      `agreement with ClojureScript: ${agree} of ${CORPUS.length - Object.keys(DIFFERENT).length} programs (${Object.keys(DIFFERENT).length} listed differences)`,
    );
    expect(disagreements, disagreements.join('\n')).toEqual([]);
  }, 180_000);
});
