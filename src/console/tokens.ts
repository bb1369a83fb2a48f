/**
 * The console's tokens: who holds one, under which name and with which roles, and how
 * they change without a restart. A token is written `SECRET` (its holder acts as the
 * console's `--user`), `NAME:SECRET` (recorded as NAME on what its holder decides) or
 * `NAME[role,role]:SECRET` (NAME may decide what those roles may decide), several
 * separated by commas in `--token` / NAVIGATOR_CONSOLE_TOKEN, or one a line in a tokens
 * file (`#` starts a comment), which is read again whenever it changes: add, remove or
 * rotate a token by editing the file. A secret must be at least 16 characters: an empty
 * one (`--token "ana:$ANA_SECRET"` with the variable unset) would let an empty cookie in.
 */
import { stat, readFile } from 'node:fs/promises';
import { z } from 'zod';
import { generateSecret, sameSecret, secretProblem } from '../codec/secrets.ts';

export interface Token {
  /** recorded as `by`; null: the console's user */
  name: string | null;
  secret: string;
  /** the roles its holder acts with (see `approvers` of decisions and gated tools) */
  roles: string[];
}

const NAME = z.string().regex(/^[^\s:,[\]]+$/, 'a name has no spaces, colons, commas or brackets');
const ROLE = z.string().regex(/^[\w.-]+$/, 'a role is letters, digits, _, . or -');

/** Entries of a spec, split on commas outside brackets (`ana[finance,ops]:S,bob:T`). */
const entries = (spec: string) =>
  spec
    .split(/,(?![^[]*\])/)
    .map((t) => t.trim())
    .filter(Boolean);

/** One token, or why it cannot be used; `where` names where it was written. */
function parseToken(entry: string, where: string): Token {
  const colon = entry.indexOf(':');
  if (colon === 0)
    throw new Error(`a token in ${where} starts with ':': the name before it is empty (was its variable unset?)`);
  if (colon < 0) {
    const problem = secretProblem(entry, `an unnamed token in ${where}`);
    if (problem) throw new Error(problem);
    return { name: null, secret: entry, roles: [] };
  }
  const head = entry.slice(0, colon);
  const secret = entry.slice(colon + 1);
  const m = /^([^[]*)(?:\[([^\]]*)\])?$/.exec(head);
  if (!m) throw new Error(`the token ${head}:... in ${where}: write NAME:SECRET or NAME[role,role]:SECRET`);
  const name = NAME.safeParse(m[1]);
  if (!name.success) throw new Error(`the token name "${m[1]}" in ${where}: ${name.error.issues[0]!.message}`);
  const roles = (m[2] ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const role of roles) {
    const ok = ROLE.safeParse(role);
    if (!ok.success) throw new Error(`the role "${role}" of ${name.data} in ${where}: ${ok.error.issues[0]!.message}`);
  }
  const problem = secretProblem(secret, `the secret of ${name.data} in ${where}`, `--token "${name.data}:$SECRET"`);
  if (problem) throw new Error(problem);
  return { name: name.data, secret, roles };
}

/**
 * The tokens of `spec` (see the top comment), checked: throws naming the token and where
 * it was written when a name is empty, a secret empty or short, or two tokens share a
 * secret. Nothing (undefined, blank) gives no tokens.
 */
export function parseTokens(spec: string | undefined, where = '--token (or NAVIGATOR_CONSOLE_TOKEN)'): Token[] {
  const tokens = entries(spec ?? '').map((e) => parseToken(e, where));
  const secrets = new Set<string>();
  for (const t of tokens) {
    if (secrets.has(t.secret)) throw new Error(`two tokens in ${where} share a secret: give each holder their own`);
    secrets.add(t.secret);
  }
  return tokens;
}

/** The token that matches `given`; every token is compared, in constant time. */
export function matching(given: string | undefined, tokens: readonly Token[]): Token | null {
  let found: Token | null = null;
  for (const t of tokens) if (sameSecret(given, t.secret) && !found) found = t;
  return found;
}

/** The text of a tokens file as a spec: one token a line, `#` comments. */
const fileSpec = (text: string) =>
  text
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .join(',');

/**
 * The tokens in force: those of `--token` plus those of the tokens file, read again when
 * its size, time or inode change (an editor's save, a `mv` into place). A file that
 * becomes unreadable or invalid closes the console (every request refused, the problem
 * said) until it is fixed: a token removed from a broken file must not stay valid.
 */
export class TokenSet {
  private fromFile: Token[] = [];
  private seen = '';
  private problem: string | null = null;

  private readonly inline: Token[];
  private readonly file: string | undefined;
  private readonly onProblem: (problem: string) => void;

  /** Throws at once when a token of `token` cannot be used; the file is read by `check` or the first `current`. */
  constructor(o: { token?: string; tokensFile?: string; onProblem?: (problem: string) => void }) {
    this.inline = parseTokens(o.token);
    if (o.token !== undefined && this.inline.length === 0) {
      throw new Error(
        '--token (or NAVIGATOR_CONSOLE_TOKEN) is empty: the variable it was made from was probably unset; give NAME:SECRET with a random secret (openssl rand -hex 16)',
      );
    }
    this.file = o.tokensFile;
    this.onProblem = o.onProblem ?? ((p) => console.error(`navigator console: ${p}`));
  }

  /** Throws when the tokens file cannot be read or holds a token that cannot be used; true when there is any token. */
  async check(): Promise<boolean> {
    const now = await this.current();
    if ('problem' in now) throw new Error(now.problem);
    return now.tokens.length > 0 || this.file !== undefined;
  }

  /** Whether tokens were given at all (inline or as a file). */
  get given(): boolean {
    return this.inline.length > 0 || this.file !== undefined;
  }

  /** The tokens now in force, or why none may be used. */
  async current(): Promise<{ tokens: Token[] } | { problem: string }> {
    if (this.file) await this.refresh();
    return this.problem ? { problem: this.problem } : { tokens: [...this.inline, ...this.fromFile] };
  }

  private async refresh(): Promise<void> {
    const file = this.file!;
    try {
      const s = await stat(file);
      const version = `${s.ino}:${s.size}:${s.mtimeMs}`;
      if (version === this.seen) return;
      const read = parseTokens(fileSpec(await readFile(file, 'utf8')), `the tokens file`);
      this.fromFile = read;
      this.seen = version;
      this.problem = null;
    } catch (err) {
      const problem = `the tokens file ${file} cannot be used, so no token is accepted until it is fixed: ${(err as Error).message}`;
      if (problem !== this.problem) this.onProblem(problem);
      this.problem = problem;
      this.fromFile = [];
      this.seen = '';
    }
  }
}

/**
 * The console's own session on loopback when no token is given: a secret nobody is told,
 * set as the cookie by a one-time link (`/?login=CODE`, as notebook servers do). Each
 * code works once; `newLink` makes another one.
 */
export class LoginSession {
  readonly token: Token;
  private readonly codes = new Set<string>();

  constructor() {
    this.token = { name: null, secret: generateSecret(), roles: [] };
  }

  /** A fresh one-time code. */
  newCode(): string {
    const code = generateSecret();
    this.codes.add(code);
    return code;
  }

  /** Whether `code` is an unused code; it is used up by this call. */
  redeem(code: string): boolean {
    for (const c of this.codes) {
      if (sameSecret(code, c)) {
        this.codes.delete(c);
        return true;
      }
    }
    return false;
  }
}
