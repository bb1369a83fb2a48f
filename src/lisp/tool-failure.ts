/**
 * Why a tool call failed, in structured form: the tool, the class of failure and the
 * reason alone. A program that catches the failure reads the reason as `(ex-message e)`
 * (the service's words, or the person's when they denied the call) and the rest as
 * `(ex-data e)`: `{:type :tool_error :tool "issue_refund" :class :rejected}`, so that what
 * it writes into a business record carries no wording of ours.
 *
 * The failure of an effect reaches the interpreter as the text its host made of it (the
 * workflow's effect result); the forms read here are those of src/activities/tool-invocation.ts
 * (`tool NAME rejected the call: ...`, `tool NAME failed: ...`) and of the mission
 * workflow's approvals (`tool NAME was not approved: denied by WHO: NOTE`, `... no approval
 * before the deadline`). test/lisp/tool-failure.test.ts pins them.
 */

/** `rejected`: the service refused the request; `denied`: a person refused it; `expired`: nobody decided in time; `failed`: anything else. */
export type ToolFailureClass = 'rejected' | 'denied' | 'expired' | 'failed';

export interface ToolFailure {
  tool: string;
  class: ToolFailureClass;
  /** the service's or the person's reason alone */
  reason: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The failure of `tool` from the error a handler threw (a `ToolRejected` is the service's
 * refusal) or the text a host recorded for an effect.
 */
export function toolFailure(tool: string, error: unknown): ToolFailure {
  const text = error instanceof Error ? error.message || error.name : typeof error === 'string' ? error : String(error);
  if (error instanceof Error && error.name === 'ToolRejected') return { tool, class: 'rejected', reason: text };
  const name = escape(tool);
  const rejected = new RegExp(`^tool ${name} rejected the call: ([\\s\\S]*)$`).exec(text);
  if (rejected) return { tool, class: 'rejected', reason: rejected[1]! };
  const notApproved = new RegExp(`^tool ${name} was not approved: ([\\s\\S]*)$`).exec(text);
  if (notApproved) {
    const why = notApproved[1]!;
    if (why === 'no approval before the deadline') return { tool, class: 'expired', reason: why };
    // `denied by ana: the note`, `denied: the note`, `denied by ana`, `denied`
    const denied = /^denied(?: by ([^:]*))?(?:: ([\s\S]*))?$/.exec(why);
    if (denied)
      return { tool, class: 'denied', reason: denied[2] ?? (denied[1] ? `denied by ${denied[1]}` : 'denied') };
    return { tool, class: 'denied', reason: why };
  }
  const failed = new RegExp(`^tool ${name} failed: ([\\s\\S]*)$`).exec(text);
  return { tool, class: 'failed', reason: failed ? failed[1]! : text };
}
