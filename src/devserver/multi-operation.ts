/**
 * ExecuteMultiOperation, as the client's update-with-start uses it: exactly one
 * startWorkflow followed by one updateWorkflow on the same workflow id. A failed start
 * is reported the way the real server does, inside MultiOperationExecutionFailure, so
 * the SDK raises its usual typed errors (e.g. WorkflowExecutionAlreadyStartedError).
 */
import { status } from '@grpc/grpc-js';
import type { Engine } from './engine.ts';
import { invalidArgument, RpcError } from './errors.ts';
import type { CallContext } from './grpc.ts';
import { startWorkflowExecution } from './lifecycle.ts';
import { type Msg, packAny } from './proto.ts';
import { updateWorkflowExecution } from './updates.ts';

function multiOperationFailure(err: RpcError): RpcError {
  return new RpcError(err.code, err.message, {
    type: 'temporal.api.errordetails.v1.MultiOperationExecutionFailure',
    value: {
      statuses: [
        {
          code: err.code,
          message: err.message,
          details: err.detail ? [packAny(err.detail.type, err.detail.value)] : [],
        },
        {
          code: status.ABORTED,
          message: 'Operation was aborted.',
          details: [packAny('temporal.api.failure.v1.MultiOperationExecutionAborted', {})],
        },
      ],
    },
  });
}

export async function executeMultiOperation(engine: Engine, request: Msg, call: CallContext): Promise<Msg> {
  const [start, update] = (request.operations ?? []) as Msg[];
  if (!start?.startWorkflow || !update?.updateWorkflow || request.operations.length !== 2) {
    throw invalidArgument('ExecuteMultiOperation supports exactly one startWorkflow followed by one updateWorkflow.');
  }
  let started: Msg;
  try {
    started = startWorkflowExecution(engine, { ...start.startWorkflow, namespace: request.namespace });
  } catch (err) {
    throw err instanceof RpcError ? multiOperationFailure(err) : err;
  }
  const updated = await updateWorkflowExecution(
    engine,
    {
      ...update.updateWorkflow,
      namespace: request.namespace,
      workflowExecution: { workflowId: start.startWorkflow.workflowId, runId: started.runId },
    },
    call,
  );
  return { responses: [{ startWorkflow: started }, { updateWorkflow: updated }] };
}
