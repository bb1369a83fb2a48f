/**
 * Printing a mission's state in the CLI: what it waits for, with the exact commands to
 * go on. Reading and waiting are the client library's (src/client/missions.ts).
 */
import { type Settled, closedState, settle } from '../client/missions.ts';

// The polling itself lives in the client library; these names stay for the CLI's users.
export { type Settled, closedState, settle };

const CLI = 'npx navigator';

/** The status line, what the mission waits for, and the commands to go on. */
export function describeSettled(id: string, s: Settled): string {
  const lines: string[] = [];
  if (s.closed) {
    lines.push(`Mission ${id}: ${s.closed.status.toLowerCase()}`);
    if (s.closed.failure) lines.push(`  reason: ${s.closed.failure}`);
    else lines.push(`  result: ${JSON.stringify(s.closed.result)}`);
  } else if (s.status) {
    lines.push(`Mission ${id}: ${s.status.status} after ${s.status.passes} pass(es), ${s.status.journalSize} task(s) in the journal`);
    const p = s.status.pending;
    if (p) {
      const allowed = p.allowed ? ` (allowed: ${p.allowed.map((v) => JSON.stringify(v)).join(', ')})` : '';
      lines.push(`  waiting for ${p.key}${allowed}${p.deadline ? `, deadline ${p.deadline}` : ''}`);
      lines.push(
        `  approve:  ${CLI} approve ${id}`,
        `  reject:   ${CLI} reject ${id}`,
        `  decide:   ${CLI} decide ${id} ${p.key} '<JSON value>'`,
      );
    }
  } else {
    lines.push(`Mission ${id}: no status yet (is a worker running? \`${CLI} worker\`)`);
  }
  lines.push(
    `  inspect:  ${CLI} status|journal|progress|ledger|history ${id}`,
    `  follow:   ${CLI} watch ${id}`,
    `  audit:    ${CLI} audit ${id}`,
  );
  return lines.join('\n');
}
