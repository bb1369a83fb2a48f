/** RPC name → handler tables for the WorkflowService, OperatorService and health check. */
import * as activities from './activities.ts';
import type { Engine } from './engine.ts';
import type { Handlers } from './grpc.ts';
import { getWorkflowExecutionHistory, getWorkflowExecutionHistoryReverse } from './history-fetch.ts';
import * as lifecycle from './lifecycle.ts';
import { executeMultiOperation } from './multi-operation.ts';
import * as ns from './namespaces.ts';
import * as queries from './queries.ts';
import * as updates from './updates.ts';
import * as visibility from './visibility.ts';
import * as wft from './workflow-tasks.ts';
import { completePolls, trackPoll } from './worker-polls.ts';
import { describeTaskQueue, polling, workerShutDown } from './pollers.ts';

export function workflowServiceHandlers(engine: Engine): Handlers {
  return {
    GetSystemInfo: () => ns.getSystemInfo(),
    GetClusterInfo: () => ns.getClusterInfo(),
    DescribeNamespace: (r) => ns.describeNamespace(engine, r),
    ListNamespaces: () => ns.listNamespaces(engine),
    RegisterNamespace: (r) => ns.registerNamespace(engine, r),
    GetSearchAttributes: () => ns.getSearchAttributes(engine),

    StartWorkflowExecution: (r) => lifecycle.startWorkflowExecution(engine, r),
    SignalWorkflowExecution: (r) => lifecycle.signalWorkflowExecution(engine, r),
    SignalWithStartWorkflowExecution: (r) => lifecycle.signalWithStart(engine, r),
    RequestCancelWorkflowExecution: (r) => lifecycle.requestCancel(engine, r),
    TerminateWorkflowExecution: (r) => lifecycle.terminateWorkflowExecution(engine, r),
    QueryWorkflow: (r, call) => queries.queryWorkflow(engine, r, call),
    RespondQueryTaskCompleted: (r) => queries.respondQueryTaskCompleted(engine, r),
    UpdateWorkflowExecution: (r, call) => updates.updateWorkflowExecution(engine, r, call),
    ExecuteMultiOperation: (r, call) => executeMultiOperation(engine, r, call),
    PollWorkflowExecutionUpdate: (r, call) => updates.pollWorkflowExecutionUpdate(engine, r, call),

    GetWorkflowExecutionHistory: (r, call) => getWorkflowExecutionHistory(engine, r, call),
    GetWorkflowExecutionHistoryReverse: (r) => getWorkflowExecutionHistoryReverse(engine, r),
    DescribeWorkflowExecution: (r) => visibility.describeWorkflowExecution(engine, r),
    ListWorkflowExecutions: (r) => visibility.listWorkflowExecutions(engine, r),
    ListOpenWorkflowExecutions: (r) =>
      visibility.listWorkflowExecutions(engine, { ...r, query: "ExecutionStatus = 'Running'" }),
    ScanWorkflowExecutions: (r) => visibility.listWorkflowExecutions(engine, r),
    CountWorkflowExecutions: (r) => visibility.countWorkflowExecutions(engine, r),

    PollWorkflowTaskQueue: (r, call) =>
      polling(engine, 'TASK_QUEUE_TYPE_WORKFLOW', r, () =>
        trackPoll(engine, r, call, (c) => wft.pollWorkflowTask(engine, r, c)),
      ),
    RespondWorkflowTaskCompleted: (r) => wft.respondWorkflowTaskCompleted(engine, r),
    RespondWorkflowTaskFailed: (r) => wft.respondWorkflowTaskFailed(engine, r),
    ShutdownWorker: (r) => {
      completePolls(engine, r.workerInstanceKey);
      workerShutDown(engine, r.workerInstanceKey, r.identity);
      if (r.stickyTaskQueue) wft.dropStickyQueue(engine, r.namespace, r.stickyTaskQueue);
      return {};
    },
    ResetStickyTaskQueue: (r) => {
      wft.resetSticky(engine, engine.run(r.namespace, r.execution));
      return {};
    },
    DescribeTaskQueue: (r) => describeTaskQueue(engine, r),

    PollActivityTaskQueue: (r, call) =>
      polling(engine, 'TASK_QUEUE_TYPE_ACTIVITY', r, () =>
        trackPoll(engine, r, call, (c) => activities.pollActivityTask(engine, r, c)),
      ),
    RecordActivityTaskHeartbeat: (r) => activities.heartbeat(engine, r, false),
    RecordActivityTaskHeartbeatById: (r) => activities.heartbeat(engine, r, true),
    RespondActivityTaskCompleted: (r) => activities.completed(engine, r, false),
    RespondActivityTaskCompletedById: (r) => activities.completed(engine, r, true),
    RespondActivityTaskFailed: (r) => activities.failed(engine, r, false),
    RespondActivityTaskFailedById: (r) => activities.failed(engine, r, true),
    RespondActivityTaskCanceled: (r) => activities.canceled(engine, r, false),
    RespondActivityTaskCanceledById: (r) => activities.canceled(engine, r, true),
  };
}

export function operatorServiceHandlers(engine: Engine): Handlers {
  return {
    ListSearchAttributes: (r) => ns.listSearchAttributes(engine, r),
    AddSearchAttributes: (r) => ns.addSearchAttributes(engine, r),
    RemoveSearchAttributes: (r) => ns.removeSearchAttributes(engine, r),
  };
}

export function healthHandlers(): Handlers {
  return { Check: () => ({ status: 'SERVING' }) };
}
