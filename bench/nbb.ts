/**
 * SCI (the Clojure interpreter behind babashka/nbb) timed side by side with our rows.
 *
 * One nbb process is started before the first row and kept for the whole run, as ours is
 * one process: the same warm-up programs and earlier rows warm it up as they warm ours.
 * It reads one JSON request per line on stdin and answers `#id<TAB>ms` (the programs' own
 * prints are skipped):
 *
 * - `load`: a whole program run with `load-string` `n` times, each run read, analysed and
 *   evaluated anew (what a program new to the process costs in SCI, which keeps nothing
 *   by source); the median.
 * - `batch`: each of many programs run once with `load-string`; the total.
 * - `warm`: each of many programs run once with `load-string` in a namespace of its own, an
 *   error in one going on to the next (programs written for PTC-Lisp, many not
 *   ClojureScript); how many ran.
 * - `steady`: an expression analysed once at start-up, called as `medianMs` calls ours
 *   (warm-up runs for at least `steadyMs`, then the median of at least `n` runs lasting at
 *   least `steadyMs`): SCI's steady state.
 *
 * The harness asks right after timing our row, so both figures of a row are taken within
 * a second or two of each other on a shared machine whose speed drifts.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface NbbSteadyCase {
  name: string;
  /** a ClojureScript expression over the vars the data defines (`bench/records`, ...) */
  expr: string;
}

/** The command that runs nbb, if there is one: `$NBB`, else `nbb` on the PATH. */
function nbbCommand(): string[] | undefined {
  const cmd = process.env.NBB?.trim() ? process.env.NBB.trim().split(/\s+/) : ['nbb'];
  const probe = spawnSync(cmd[0]!, [...cmd.slice(1), '-e', '(+ 1 2)'], { encoding: 'utf8', timeout: 300_000 });
  return probe.status === 0 ? cmd : undefined;
}

function script(dataFile: string, vars: string[], cases: NbbSteadyCase[], steadyMs: number): string {
  const defs = vars.map((v) => `(def ${v} (aget data ${JSON.stringify(v)}))`).join('\n');
  const table = cases.map((c) => `   ${JSON.stringify(c.name)} (fn [] ${c.expr})`).join('\n');
  return `(ns bench (:require ["fs" :as fs] ["readline" :as readline] [clojure.string :as str] [promesa.core :as p] [nbb.core :refer [load-string]]))
(def data (js/JSON.parse (fs/readFileSync ${JSON.stringify(dataFile)} "utf8")))
${defs}
(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(defn median [xs] (nth (sort xs) (quot (count xs) 2)))
(defn steady [n f]
  (let [warm (js/performance.now)]
    (loop [i 0] (when (or (< i 3) (< (- (js/performance.now) warm) ${steadyMs})) (f) (recur (inc i)))))
  (let [start (js/performance.now)]
    (loop [ts []]
      (if (and (>= (count ts) n) (>= (- (js/performance.now) start) ${steadyMs}))
        (median ts)
        (recur (conj ts (let [t (js/performance.now)] (f) (- (js/performance.now) t))))))))
(def cases {
${table}})
(defn timed-load [src]
  (let [t (js/performance.now)]
    (p/let [_ (load-string src)] (- (js/performance.now) t))))
(defn loads [srcs]
  (p/loop [srcs srcs ts []]
    (if (seq srcs)
      (p/let [t (timed-load (first srcs))] (p/recur (rest srcs) (conj ts t)))
      ts)))
(defn warm [srcs]
  (p/loop [srcs srcs i 0 ok 0]
    (if (seq srcs)
      ;; each in a namespace of its own: a program that defines map or str must not change
      ;; what the later programs (and the timed ones, in user) call
      (p/let [good (-> (p/let [_ (load-string (str "(ns bench-warm-" i ") " (first srcs)))] 1) (p/catch (fn [_] 0)))]
        (p/recur (rest srcs) (inc i) (+ ok good)))
      ok)))
(defn answer [id ms] (println (str "#" id "\\t" ms)))
(defn handle [{:keys [id op src srcs n name]}]
  (case op
    "load" (p/let [ts (loads (repeat n src))] (median ts))
    "batch" (p/let [ts (loads srcs)] (reduce + ts))
    "warm" (warm srcs)
    "steady" (steady n (get cases name))))
(def lines (.createInterface readline #js {:input js/process.stdin}))
(.on lines "line"
  (fn [line]
    (let [req (js->clj (js/JSON.parse line) :keywordize-keys true)]
      (-> (p/let [ms (handle req)] (answer (:id req) ms))
          (p/catch (fn [e] (binding [*print-fn* *print-err-fn*] (println "nbb bench:" (ex-message e))) (answer (:id req) "NaN")))))))
(.on lines "close" (fn [] (js/process.exit 0)))
(println "ready")
`;
}

/** How long one request may take in nbb (the slowest takes a few seconds). */
const ANSWER_MS = 300_000;

type Request =
  | { op: 'load'; src: string; n: number }
  | { op: 'batch'; srcs: string[] }
  | { op: 'warm'; srcs: string[] }
  | { op: 'steady'; name: string; n: number };

/** A running nbb that times programs on request. */
export class NbbSession {
  /** the line awaited: `ready`, or the answer to one request */
  private awaited: { prefix: string; resolve: (line: string | undefined) => void } | undefined;
  private ended = false;
  private nextId = 0;

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
   * Starts nbb over `data` (each top-level key becomes a var of the `bench` namespace), or
   * gives undefined when nbb is not installed or does not come up.
   */
  static async start(
    data: Record<string, unknown>,
    cases: NbbSteadyCase[],
    steadyMs: number,
  ): Promise<NbbSession | undefined> {
    const cmd = nbbCommand();
    if (!cmd) return undefined;
    const dir = mkdtempSync(join(tmpdir(), 'bench-nbb-'));
    writeFileSync(join(dir, 'data.json'), JSON.stringify(data));
    writeFileSync(join(dir, 'bench.cljs'), script(join(dir, 'data.json'), Object.keys(data), cases, steadyMs));
    const child = spawn(cmd[0]!, [...cmd.slice(1), join(dir, 'bench.cljs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const session = new NbbSession(child, dir);
    if ((await session.line('ready')) === undefined) {
      session.close();
      return undefined;
    }
    return session;
  }

  /** Median ms of `n` runs of the whole program `src`, each read and analysed anew. */
  load(src: string, n: number): Promise<number | undefined> {
    return this.request({ op: 'load', src, n });
  }

  /** Total ms of one run of each program. */
  batch(srcs: string[]): Promise<number | undefined> {
    return this.request({ op: 'batch', srcs });
  }

  /** Runs each program once, errors and all; how many ran without one. */
  warm(srcs: string[]): Promise<number | undefined> {
    return this.request({ op: 'warm', srcs });
  }

  /** Steady-state median ms of the expression named `name`. */
  steady(name: string, n: number): Promise<number | undefined> {
    return this.request({ op: 'steady', name, n });
  }

  close(): void {
    this.child.stdin?.end();
    if (!this.ended) this.child.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * The answer to one request, undefined if it failed. A request not answered within
   * {@link ANSWER_MS} stops nbb: the rest of the run goes on without it.
   */
  private async request(req: Request): Promise<number | undefined> {
    if (this.ended) return undefined;
    const id = this.nextId++;
    const answer = this.line(`#${id}\t`);
    this.child.stdin!.write(`${JSON.stringify({ id, ...req })}\n`);
    const timer = setTimeout(() => this.child.kill(), ANSWER_MS);
    const line = await answer;
    clearTimeout(timer);
    const ms = line ? Number(line.slice(line.indexOf('\t') + 1)) : NaN;
    return Number.isFinite(ms) ? ms : undefined;
  }

  /** The next line nbb prints that starts with `prefix` (undefined once it has exited). */
  private line(prefix: string): Promise<string | undefined> {
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.awaited = { prefix, resolve };
    });
  }
}
