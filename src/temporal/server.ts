/**
 * A Temporal server for development and tests, as both kinds are started: the embedded one
 * (src/devserver) and the real one the Temporal CLI runs (cli-server.ts). Here, not in
 * src/devserver, so that the real server's module does not import the embedded server.
 */
export interface DevServerOptions {
  /** TCP port; 0 picks a free one. @default 7233 */
  port?: number;
  /** @default '127.0.0.1' */
  ip?: string;
  /** State file for `--db`; without it state lives in memory only. */
  db?: string;
  /** Namespace created at start (besides any restored ones). @default 'default' */
  namespace?: string;
  /** Custom search attributes to pre-register on that namespace: name → IndexedValueType name. */
  searchAttributes?: Record<string, string>;
  /** Days a closed workflow is kept in that namespace (fractions allowed). @default 1, as the real dev server */
  retentionDays?: number;
}

export interface DevServer {
  /** `ip:port` to give to Connection.connect / NativeConnection.connect. */
  address: string;
  namespace: string;
  shutdown(): Promise<void>;
}
