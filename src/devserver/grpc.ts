/**
 * grpc-js wiring: turns the reflected Temporal services into grpc-js service
 * definitions and routes each unary call to a handler working on decoded messages.
 * Methods without a handler answer UNIMPLEMENTED, as an older real server would, saying
 * which RPC is missing so the caller knows it hit a limit of this server, not a bug.
 */
import * as grpc from '@grpc/grpc-js';
import { decode, encode, type Msg, root } from './proto.ts';
import { RpcError } from './errors.ts';

/** What a handler learns about its call: long polls need the deadline and cancellation. */
export interface CallContext {
  /** Absolute deadline in epoch ms, if the client set one. */
  readonly deadline: number | undefined;
  readonly cancelled: () => boolean;
  /** Registers a callback run once if the client cancels or disconnects. */
  onCancel(callback: () => void): void;
}

export type Handler = (request: Msg, call: CallContext) => Msg | Promise<Msg>;
export type Handlers = Record<string, Handler>;

export const SERVICES = {
  workflow: 'temporal.api.workflowservice.v1.WorkflowService',
  operator: 'temporal.api.operatorservice.v1.OperatorService',
  health: 'grpc.health.v1.Health',
} as const;

function serviceDefinition(serviceName: string): grpc.ServiceDefinition {
  const service = root.lookupService(serviceName);
  const definition: Record<string, grpc.MethodDefinition<Msg, Msg>> = {};
  for (const method of service.methodsArray) {
    if (method.requestStream || method.responseStream) continue; // only unary calls are served
    const requestType = method.resolvedRequestType!;
    const responseType = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${serviceName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Msg) => encode(requestType, value),
      requestDeserialize: (bytes: Buffer) => decode(requestType, bytes),
      responseSerialize: (value: Msg) => encode(responseType, value),
      responseDeserialize: (bytes: Buffer) => decode(responseType, bytes),
    };
  }
  return definition;
}

function callContext(call: grpc.ServerUnaryCall<Msg, Msg>): CallContext {
  const raw = call.getDeadline();
  const deadline = raw instanceof Date ? raw.getTime() : Number.isFinite(raw) ? Number(raw) : undefined;
  let cancelled = false;
  const callbacks: Array<() => void> = [];
  call.on('cancelled', () => {
    cancelled = true;
    for (const cb of callbacks.splice(0)) cb();
  });
  return {
    deadline,
    cancelled: () => cancelled || call.cancelled,
    onCancel: (cb) => (cancelled ? cb() : callbacks.push(cb)),
  };
}

function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof RpcError) {
    const metadata = new grpc.Metadata();
    const details = err.statusDetails();
    if (details) metadata.set('grpc-status-details-bin', details);
    return { code: err.code, details: err.message, metadata };
  }
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return { code: grpc.status.INTERNAL, details: message };
}

function unimplemented(serviceName: string, method: string): Partial<grpc.StatusObject> {
  const service = serviceName.slice(serviceName.lastIndexOf('.') + 1);
  return {
    code: grpc.status.UNIMPLEMENTED,
    details: `${service}.${method} is not implemented by the embedded navigator dev server`,
  };
}

function implementation(
  serviceName: string,
  definition: grpc.ServiceDefinition,
  handlers: Handlers,
  stopping: () => boolean,
  beforeReply: () => Promise<void> | void,
): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  for (const name of Object.keys(definition)) {
    const handler = handlers[name];
    impl[name] = (call: grpc.ServerUnaryCall<Msg, Msg>, callback: grpc.sendUnaryData<Msg>) => {
      if (stopping()) {
        // State changes now would not be persisted: clients retry against the next server.
        callback({ code: grpc.status.UNAVAILABLE, details: 'the dev server is shutting down' });
        return;
      }
      if (!handler) {
        callback(unimplemented(serviceName, name));
        return;
      }
      const ctx = callContext(call);
      Promise.resolve()
        .then(() => handler(call.request, ctx))
        // A failure to persist fails the call: the client must not believe it happened.
        .finally(beforeReply)
        .then(
          (response) => callback(null, response),
          (err) => callback(toServiceError(err)),
        );
    };
  }
  return impl;
}

/**
 * Starts a grpc-js server on `ip:port` serving the given handler tables. `beforeReply`
 * runs after each handler; the answer is sent once the promise it returns resolves.
 */
export async function listen(
  ip: string,
  port: number,
  handlers: Record<keyof typeof SERVICES, Handlers>,
  stopping: () => boolean,
  beforeReply: () => Promise<void> | void = () => {},
): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 128 * 1024 * 1024,
    'grpc.max_send_message_length': 128 * 1024 * 1024,
  });
  for (const key of Object.keys(SERVICES) as Array<keyof typeof SERVICES>) {
    const definition = serviceDefinition(SERVICES[key]);
    server.addService(definition, implementation(SERVICES[key], definition, handlers[key], stopping, beforeReply));
  }
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${ip}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, port: bound };
}
