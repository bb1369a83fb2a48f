/** gRPC status errors raised by handlers; grpc.ts turns them into call errors. */
import { status } from '@grpc/grpc-js';
import { encode, lookupType, type Msg, packAny } from './proto.ts';

export class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
    /** Optional google.rpc.Status detail, e.g. WorkflowExecutionAlreadyStartedFailure. */
    readonly detail?: { type: string; value: Msg },
  ) {
    super(message);
  }

  /** The `grpc-status-details-bin` trailer the SDK decodes for typed errors. */
  statusDetails(): Buffer | undefined {
    if (!this.detail) return undefined;
    return encode(lookupType('google.rpc.Status'), {
      code: this.code,
      message: this.message,
      details: [packAny(this.detail.type, this.detail.value)],
    });
  }
}

export const notFound = (message: string) => new RpcError(status.NOT_FOUND, message);
export const invalidArgument = (message: string) => new RpcError(status.INVALID_ARGUMENT, message);
