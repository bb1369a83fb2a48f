/**
 * Where Temporal is: Temporal's standard environment configuration (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS settings, TEMPORAL_PROFILE and the config
 * file) through @temporalio/envconfig. Without an address, the default local server
 * (`navigator dev` or `temporal server start-dev`) on 127.0.0.1:7233.
 */
import { telemetry } from '../telemetry/setup.ts';
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection } from '@temporalio/worker';
import { configuredDataConverter } from '../codec/load.ts';

export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_TASK_QUEUE = 'navigator';

export interface TemporalTarget {
  address: string;
  namespace: string;
  /** the rest of the profile: TLS, API key, gRPC metadata */
  connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
  /** true when TEMPORAL_ADDRESS or a config profile named an address */
  configured: boolean;
}

export function resolveTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const profile = loadClientConnectConfig({
    profile: env.TEMPORAL_PROFILE,
    overrideEnvVars: env as Record<string, string>,
  });
  const address = profile.connectionOptions.address;
  return {
    address: address ?? DEFAULT_ADDRESS,
    namespace: profile.namespace ?? 'default',
    connectionOptions: profile.connectionOptions,
    configured: address !== undefined,
  };
}

export function taskQueueFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? env.NAVIGATOR_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
}

export interface Connected {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/**
 * gRPC limits for a client that reads histories: a history page or a query answer can be
 * larger than gRPC's default 4 MB (histories written before the payload store, or with
 * NAVIGATOR_PAYLOAD_STORE=off), and a reader must still read it.
 */
export const LARGE_MESSAGES = {
  'grpc.max_receive_message_length': 256 * 1024 * 1024,
  'grpc.max_send_message_length': 64 * 1024 * 1024,
} as const;

export async function connectClient(target: TemporalTarget): Promise<Connected> {
  const opts = target.connectionOptions as { channelArgs?: Record<string, unknown> };
  const connection = await Connection.connect({
    ...target.connectionOptions,
    address: target.address,
    channelArgs: { ...LARGE_MESSAGES, ...opts.channelArgs },
  } as never);
  // the payload codec of this process (NAVIGATOR_CODEC / --codec), if any
  const t = telemetry();
  const client = new Client({
    connection,
    namespace: target.namespace,
    dataConverter: await configuredDataConverter(),
    ...(t ? { plugins: t.plugins } : {}),
  });
  // a command that ends right after its call still exports its spans
  return { client, connection, close: async () => Promise.all([connection.close(), t?.flush()]).then(() => undefined) };
}

export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  return NativeConnection.connect({ ...target.connectionOptions, address: target.address });
}
