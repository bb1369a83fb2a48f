/**
 * What an approver feels: "Approve" clicked in the web console → the effect's activity
 * running on the worker. A real console (startConsole, HTTP on a free port) serves the
 * mission page the approver has open; the click is the form POST the browser sends (the
 * page's CSRF token, the console's own Origin), timed from the moment it is sent. The
 * console's handler reads the effect's args (a status query) and sends the approveEffect
 * update; the worker's probe says when the effect's runTool activity started.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { NavigatorClient } from '../src/client/index.ts';
import { startConsole } from '../src/console/server.ts';
import type { ActivityProbe } from './temporal-probe.ts';
import { nowMs } from './temporal-probe.ts';

export interface ConsoleClickLane {
  client: NavigatorClient['client'];
  taskQueue: string;
  probe: ActivityProbe;
}

export interface ConsoleClick {
  /** POST sent → the console's answer (its redirect to the mission page) */
  answered: number;
  /** POST sent → the effect's runTool activity started on the worker */
  started: number;
}

/** The approve form of the page's first waiting effect: where it posts and its CSRF token. */
function approveForm(page: string): { action: string; csrf: string } {
  const form =
    /<form method="post" action="([^"]*\/effects\/[^"]*\/approve)"[^>]*><input type="hidden" name="_csrf" value="([^"]+)"/.exec(
      page,
    );
  if (!form) throw new Error('the mission page shows no effect to approve');
  return { action: form[1]!.replaceAll('&amp;', '&'), csrf: form[2]! };
}

/**
 * Runs `runs` approvals through one console: `park` starts a mission and returns once one
 * of its effects waits for approval.
 */
export async function consoleClicks(
  lane: ConsoleClickLane,
  runs: number,
  park: () => Promise<WorkflowHandle>,
): Promise<ConsoleClick[]> {
  const console = await startConsole({
    navigator: new NavigatorClient({ client: lane.client, taskQueue: lane.taskQueue }),
    user: 'bench',
    port: 0,
    pollMs: 60_000,
  });
  try {
    const out: ConsoleClick[] = [];
    for (let i = 0; i < runs; i++) {
      const handle = await park();
      const page = await (await fetch(`${console.url}/missions/${encodeURIComponent(handle.workflowId)}`)).text();
      const { action, csrf } = approveForm(page);
      const t0 = nowMs();
      const res = await fetch(`${console.url}${action}`, {
        method: 'POST',
        body: new URLSearchParams({ _csrf: csrf, note: '' }),
        headers: { origin: console.url },
        redirect: 'manual',
      });
      const answered = nowMs() - t0;
      if (res.status !== 303)
        throw new Error(`the console answered the approval with ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await handle.result();
      const tool = lane.probe.runs.find((r) => r.type === 'runTool' && r.workflowId === handle.workflowId);
      lane.probe.clear();
      out.push({ answered, started: tool ? tool.start - t0 : NaN });
    }
    return out;
  } finally {
    await console.close();
  }
}
