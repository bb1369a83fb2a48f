/**
 * SCI (the Clojure interpreter behind babashka/nbb) timed side by side with our rows.
 *
 * One nbb process is started before the first row and kept for the whole run, as ours is
 * one process: earlier rows warm it up as they warm ours. It waits on stdin for the name
 * of a case, times it as `medianMs` times ours (warm-up runs for at least
 * `steadyMs`, then the median of at least `iterations` runs lasting at least `steadyMs`)
 * and answers `name<TAB>ms`. The harness asks right after
 * timing our row, so both figures of a row are taken within a second or two of each
 * other: on a shared machine whose speed drifts over tens of seconds, timing all our rows
 * first and all of nbb's afterwards put the two sides of a row in different conditions.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface NbbCase {
  name: string;
  /** a ClojureScript expression over the vars the data defines */
  expr: string;
  iterations: number;
}

export interface NbbProgram {
  name: string;
  /** a whole program, run with `load-string` (timed with its reading and analysis) */
  src: string;
  iterations: number;
}

/** The command that runs nbb, if there is one: `$NBB`, else `nbb` on the PATH. */
function nbbCommand(): string[] | undefined {
  const cmd = process.env.NBB?.trim() ? process.env.NBB.trim().split(/\s+/) : ['nbb'];
  const probe = spawnSync(cmd[0]!, [...cmd.slice(1), '-e', '(+ 1 2)'], { encoding: 'utf8', timeout: 300_000 });
  return probe.status === 0 ? cmd : undefined;
}

function script(dataFile: string, vars: string[], cases: NbbCase[], program: NbbProgram, steadyMs: number): string {
  const defs = vars.map((v) => `(def ${v} (aget data ${JSON.stringify(v)}))`).join('\n');
  const table = cases.map((c) => `   ${JSON.stringify(c.name)} (fn [] (bench ${c.iterations} (fn [] ${c.expr})))`).join('\n');
  return `(ns bench (:require ["fs" :as fs] ["readline" :as readline] [clojure.string :as str] [promesa.core :as p] [nbb.core :refer [load-string]]))
(def data (js/JSON.parse (fs/readFileSync ${JSON.stringify(dataFile)} "utf8")))
${defs}
(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(defn median [xs] (nth (sort xs) (quot (count xs) 2)))
(defn bench [n f]
  (let [warm (js/performance.now)]
    (loop [i 0] (when (or (< i 3) (< (- (js/performance.now) warm) ${steadyMs})) (f) (recur (inc i)))))
  (let [start (js/performance.now)]
    (loop [ts []]
      (if (and (>= (count ts) n) (>= (- (js/performance.now) start) ${steadyMs}))
        (median ts)
        (recur (conj ts (let [t (js/performance.now)] (f) (- (js/performance.now) t))))))))
(def cases {
${table}})
(defn time-load [n]
  (let [start (js/performance.now)]
    (p/loop [i 0 ts []]
      (if (or (< i n) (< (- (js/performance.now) start) ${steadyMs}))
        (let [t (js/performance.now)]
          (p/let [_ (load-string ${JSON.stringify(program.src)})]
            (p/recur (inc i) (conj ts (- (js/performance.now) t)))))
        ts))))
(defn answer [name ms] (println (str name "\\t" ms)))
(def lines (.createInterface readline #js {:input js/process.stdin}))
(.on lines "line"
  (fn [name]
    (cond
      (= name ${JSON.stringify(program.name)})
      (-> (p/let [_ (time-load 20) ts (time-load ${program.iterations})] (answer name (median ts)))
          (p/catch (fn [_] (answer name "NaN"))))
      (contains? cases name) (answer name (try ((get cases name)) (catch :default _ "NaN")))
      :else (answer name "NaN"))))
(.on lines "close" (fn [] (js/process.exit 0)))
(println "ready")
`;
}

/** How long one case may take in nbb (the slowest takes a few seconds). */
const ANSWER_MS = 300_000;

/** A running nbb that times cases on request. */
export class NbbSession {
  /** the line awaited: `ready`, or the answer for one case (the programs' own prints are skipped) */
  private awaited: { prefix: string; resolve: (line: string | undefined) => void } | undefined;
  private ended = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    const out = createInterface({ input: child.stdout! });
    out.on('line', (line) => {
      if (this.awaited === undefined || !line.startsWith(this.awaited.prefix)) return;
      const { resolve } = this.awaited;
      this.awaited = undefined;
      resolve(line);
    });
    child.stdin!.on('error', () => undefined); // a write after nbb died: its exit already answered
    child.on('exit', () => {
      this.ended = true;
      this.awaited?.resolve(undefined);
      this.awaited = undefined;
    });
  }

  /**
   * Starts nbb over `data` (each top-level key becomes a var), or gives undefined when
   * nbb is not installed or does not come up.
   */
  static async start(data: Record<string, unknown>, cases: NbbCase[], program: NbbProgram, steadyMs: number): Promise<NbbSession | undefined> {
    const cmd = nbbCommand();
    if (!cmd) return undefined;
    const dir = mkdtempSync(join(tmpdir(), 'bench-nbb-'));
    writeFileSync(join(dir, 'data.json'), JSON.stringify(data));
    writeFileSync(join(dir, 'bench.cljs'), script(join(dir, 'data.json'), Object.keys(data), cases, program, steadyMs));
    const child = spawn(cmd[0]!, [...cmd.slice(1), join(dir, 'bench.cljs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const session = new NbbSession(child, dir);
    if ((await session.line('ready')) === undefined) {
      session.close();
      return undefined;
    }
    return session;
  }

  /**
   * nbb's median ms for the case (or program) named `name`, undefined if it failed. A
   * case that has not answered within {@link ANSWER_MS} stops nbb: the rest of the run
   * goes on without it.
   */
  async time(name: string): Promise<number | undefined> {
    if (this.ended) return undefined;
    const answer = this.line(`${name}\t`);
    this.child.stdin!.write(`${name}\n`);
    const timer = setTimeout(() => this.child.kill(), ANSWER_MS);
    const text = (await answer)?.slice(name.length + 1);
    clearTimeout(timer);
    const ms = text ? Number(text) : NaN;
    return Number.isFinite(ms) ? ms : undefined;
  }

  close(): void {
    this.child.stdin?.end();
    if (!this.ended) this.child.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The next line nbb prints that starts with `prefix` (undefined once it has exited). */
  private line(prefix: string): Promise<string | undefined> {
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.awaited = { prefix, resolve };
    });
  }
}
