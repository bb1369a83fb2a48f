/**
 * The web console: the people who approve wires or review plans use it instead of the
 * CLI. Server-rendered pages (hono) with plain forms, so every action works without
 * JavaScript; a 10-line script reloads a page when its server-sent event stream says the
 * mission or plan changed. Everything is read and sent through the client library
 * (NavigatorClient), the same validated updates as the CLI.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { contextStorage } from 'hono/context-storage';
import type { AddressInfo } from 'node:net';
import type { AgentRegistry } from '../navigator/registry.ts';
import type { NavigatorClient } from '../client/navigator-client.ts';
import { fingerprint, html, page } from './html.ts';
import { PAGE_SCRIPT } from './page-script.ts';
import { type ConsoleContext, missionRoutes } from './mission/pages.ts';
import { decisionCard, stepApprovalCard } from './approvals.ts';
import { effectsCard } from './effect-cards.ts';
import { RecentVerdicts, recentBox } from './recent.ts';
import { StartNotices } from './start-notices.ts';
import { WAITING_FOR_YOU, statusBadge } from './waiting.ts';
import { planRoutes } from './plan/pages.ts';
import { startRoutes } from './start.ts';
import { passRoutes } from './mission/pass-view.ts';
import { HistoryReads, liveRead } from './history-reads.ts';
import { WorkerUnavailableError } from '../history/reader.ts';
import { SharedReads } from './shared-reads.ts';
import { livePassNow } from './live-pass.ts';
import { ConsoleAudits } from './audits.ts';
import { scheduleRoutes } from './mission/schedules.ts';
import { security } from './security.ts';
import { mayDecideNow } from './roles.ts';
import type { ProxyAuth } from './proxy.ts';
import { isLoopbackName } from '../codec/secrets.ts';
import { LoginSession, TokenSet } from './tokens.ts';

export interface ConsoleOptions {
  navigator: NavigatorClient;
  /** recorded as `by` when the request's authentication names nobody (an unnamed token, the console's own session, noAuth) */
  user: string;
  /** the roles of those requests (see `approvers`) */
  roles?: string[];
  /** `SECRET`, `NAME:SECRET` or `NAME[role,role]:SECRET`, comma-separated (see tokens.ts); required for any host but loopback, unless a proxy authenticates */
  token?: string;
  /** a file of tokens, one a line, read again when it changes (rotate without a restart) */
  tokensFile?: string;
  /** the user (and roles) from an authenticating reverse proxy's headers (see proxy.ts) */
  proxy?: ProxyAuth;
  /** no authentication at all: loopback only, for a machine one person uses */
  noAuth?: boolean;
  /** how often live streams look for changes @default 500 */
  pollMs?: number;
  /** agents the console knows (the examples plus `--agents`): named in the start form, their input checked before a start */
  agents?: AgentRegistry;
}

/** What startConsole adds: where it binds, and its own session when nothing else authenticates. */
interface Served {
  host?: string;
  session?: LoginSession;
}

/**
 * The console as a hono app. It needs one way to authenticate (tokens, proxy, or noAuth on
 * loopback names); `startConsole` adds its own one-time-link session when none is given.
 */
export function createConsoleApp(
  opts: ConsoleOptions & Served,
  streams = new LiveStreams(),
  audits = new ConsoleAudits(opts.navigator.client),
): Hono {
  const app = new Hono();
  const tokens =
    opts.token !== undefined || opts.tokensFile !== undefined
      ? new TokenSet({ token: opts.token, tokensFile: opts.tokensFile })
      : undefined;
  const sec = security({
    user: opts.user,
    roles: opts.roles,
    tokens,
    session: opts.session,
    proxy: opts.proxy,
    noAuth: opts.noAuth,
    host: opts.host,
  });
  const ctx: ConsoleContext = {
    navigator: opts.navigator,
    csrf: sec.csrfToken,
    user: opts.user,
    agents: opts.agents,
    reads: new HistoryReads(opts.navigator.client),
    audits,
    recent: new RecentVerdicts(),
    notices: new StartNotices(),
  };
  // pages name the acting user (c.get('by')) in their header, wherever they are built
  app.use('*', contextStorage());
  app.use('*', sec.middleware);
  // the cause too: the client's own message ("Failed to query Workflow") says little without the server's reason
  app.onError((err, c) =>
    c.html(page('Something went wrong', html`<div class="problem">${messageWithCause(err)}</div>`), 500),
  );

  app.get('/assets/live.js', (c) =>
    c.body(PAGE_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }),
  );
  app.get('/', async (c) => c.html(await inbox(ctx)));
  startRoutes(app, ctx);
  passRoutes(app, ctx);
  missionRoutes(app, ctx);
  planRoutes(app, ctx);
  scheduleRoutes(app, ctx);
  // a running run no worker answers reads as that (a stable value) until one does: the page is not reloaded meanwhile
  app.get('/live/missions/:id', (c) =>
    streams.serve(
      c,
      `mission:${c.req.param('id')}`,
      liveRead(() => ctx.navigator.mission(c.req.param('id')).status()),
      opts.pollMs,
    ),
  );
  // the pass in progress, sent as it changes (the page puts it in place, no reload)
  app.get('/live/missions/:id/pass', (c) =>
    streams.serve(
      c,
      `pass:${c.req.param('id')}`,
      () => livePassNow(ctx.navigator.mission(c.req.param('id')).workflow),
      opts.pollMs,
      'pass',
    ),
  );
  app.get('/live/inbox', (c) => streams.serve(c, 'inbox', () => inboxItems(ctx), opts.pollMs));
  // progress events too: a running tool's percent and log line change without a status change
  app.get('/live/plans/:id', (c) =>
    streams.serve(
      c,
      `plan:${c.req.param('id')}`,
      liveRead(() => planNow(ctx, c.req.param('id'))),
      opts.pollMs,
    ),
  );
  return app;
}

function planNow(ctx: ConsoleContext, id: string) {
  const plan = ctx.navigator.plan(id);
  return Promise.all([plan.status(), plan.progress()]);
}

function messageWithCause(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause.message : null;
  return cause && cause !== err.message ? `${err.message}: ${cause}` : err.message;
}

/**
 * The live streams a console serves. Streams watching the same thing (`key`) share their
 * readings (src/console/shared-reads.ts): the cluster is asked about once per interval
 * however many pages watch. `stop()` ends their loops and waits for the reads in flight, so
 * that no query to Temporal outlives the console (one still running when its client's
 * connection closed was retried on the closed channel and threw out of a timer).
 */
export class LiveStreams {
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  private readonly reads = new SharedReads();

  /**
   * Sends a `change` event whenever what `read` returns changes (with `event`: that event,
   * carrying what it returned as JSON, the first reading too); ends when the client leaves or on stop.
   */
  serve(c: import('hono').Context, key: string, read: () => Promise<unknown>, pollMs = 500, event?: string) {
    // `seen`: the fingerprint of what the page was rendered from (none: the first reading is the baseline)
    const seen = c.req.query('seen') ?? '';
    return streamSSE(c, async (stream) => {
      const loop = this.poll(stream, key, read, pollMs, seen, event);
      this.running.add(loop);
      await loop.finally(() => this.running.delete(loop));
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running]);
  }

  private async poll(
    stream: import('hono/streaming').SSEStreamingApi,
    key: string,
    read: () => Promise<unknown>,
    pollMs: number,
    seen: string,
    event?: string,
  ): Promise<void> {
    let last = seen;
    // the page was rendered before its stream connected: no reading older than now may serve it
    let notBefore = Date.now();
    while (!stream.aborted && !this.stopped) {
      const reading = await this.reads
        .get(key, notBefore, read)
        .catch((e: Error) => ({ value: { error: e.message }, startedAt: notBefore }));
      const now = fingerprint(reading.value);
      if (event && now !== last) await stream.writeSSE({ event, data: JSON.stringify(reading.value) });
      else if (last && now !== last) await stream.writeSSE({ event: 'change', data: String(Date.now()) });
      last = now;
      await stream.sleep(pollMs);
      // the next reading: newer than this one, and started within the last interval
      notBefore = Math.max(reading.startedAt + 1, Date.now() - pollMs);
    }
  }
}

/** Everything waiting for a person, oldest first: mission decisions and plan steps to approve. */
async function inboxItems(ctx: ConsoleContext) {
  const [missions, plans] = await Promise.all([
    ctx.navigator.list({ kind: 'missions', query: "ExecutionStatus = 'Running'", limit: 200 }),
    ctx.navigator.list({ kind: 'plans', query: "ExecutionStatus = 'Running'", limit: 200 }),
  ]);
  // runs no worker answers for: named in a banner, by task queue (ids sorted: the live stream's fingerprint stays put)
  const unansweredRuns = new Map<string, { polling: boolean; runs: string[] }>();
  const noAnswer = (path: string) => (err: unknown) => {
    if (err instanceof WorkerUnavailableError) {
      const seen = unansweredRuns.get(err.taskQueue) ?? { polling: false, runs: [] };
      unansweredRuns.set(err.taskQueue, { polling: seen.polling || err.polling, runs: [...seen.runs, path].sort() });
    }
    return null;
  };
  const statuses = (
    await Promise.all(
      missions.map((w) =>
        ctx.navigator
          .mission(w.workflowId)
          .status()
          .catch(noAnswer(`missions/${w.workflowId}`)),
      ),
    )
  ).filter((s) => s !== null);
  const decisions = (
    await Promise.all(
      statuses.map(async (status) => {
        if (!status.pending) return null;
        const contracts = await ctx.navigator
          .mission(status.workflowId)
          .decisions()
          .catch(() => []);
        return {
          id: status.workflowId,
          agent: status.agent,
          input: status.input ?? null,
          pending: status.pending,
          contract: contracts.find((d) => d.key === status.pending!.key),
        };
      }),
    )
  ).filter((d) => d !== null);
  // a mission's effects waiting together are one batch: one card each mission, oldest first
  const effects = statuses
    .filter((s) => (s.effectApprovals ?? []).length > 0)
    .map((s) => ({
      missionId: s.workflowId,
      agent: s.agent,
      input: s.input ?? null,
      effectApprovals: s.effectApprovals,
      approvals: s.approvals ?? [],
      ...(s.effectsDone ? { effectsDone: s.effectsDone } : {}),
    }))
    .sort((a, b) => a.effectApprovals[0]!.since.localeCompare(b.effectApprovals[0]!.since));
  const views = (
    await Promise.all(
      plans.map((w) =>
        ctx.navigator
          .plan(w.workflowId)
          .status()
          .catch(noAnswer(`plans/${w.workflowId}`)),
      ),
    )
  ).filter((v) => v !== null);
  const approvals = views.flatMap((view) =>
    view.approvals.map((a) => ({
      planId: view.planId,
      agent: view.agent,
      steps: view.plan?.steps ?? [],
      classes: view.toolClasses,
      ...a,
    })),
  );
  const reviews = views
    .filter((v) => v.status === 'review')
    .map((v) => ({
      planId: v.planId,
      agent: v.agent,
      version: v.version,
      steps: (v.plan?.steps ?? []).map((s) => ({ id: s.id, description: s.description })),
    }));
  decisions.sort((a, b) => a.pending.since.localeCompare(b.pending.since));
  approvals.sort((a, b) => a.since.localeCompare(b.since));
  reviews.sort((a, b) => a.planId.localeCompare(b.planId));
  const unanswered = [...unansweredRuns]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([taskQueue, u]) => ({ taskQueue, ...u }));
  return { decisions, effects, approvals, reviews, unanswered };
}

/** Running missions and plans that no worker answered for, by task queue: what is unknown, and how to fix it. */
function unansweredBanners(
  unanswered: ReadonlyArray<{ taskQueue: string; polling: boolean; runs: readonly string[] }>,
) {
  return unanswered.map(
    (
      u,
    ) => html`<div class="problem" role="alert"><strong>No worker answered</strong> for ${u.runs.length} running mission${u.runs.length === 1 ? '' : 's'} or plan${u.runs.length === 1 ? '' : 's'} on task queue <code>${u.taskQueue}</code>
      (${u.runs.map((path, i) => {
        const [kind, id] = [path.slice(0, path.indexOf('/')), path.slice(path.indexOf('/') + 1)];
        return html`${i ? ', ' : ''}<a href="/${kind}/${encodeURIComponent(id)}">${id}</a>`;
      })}): ${u.polling ? 'its worker may have stopped just now or be too busy' : `no worker is polling task queue ${u.taskQueue}`}, so whether they wait for you is not known here;
      start one with <code>navigator worker --task-queue ${u.taskQueue}</code>.</div>`,
  );
}

async function inbox(ctx: ConsoleContext) {
  const items = await inboxItems(ctx);
  const { reviews } = items;
  // only what this person may decide (the stream still watches everything: its fingerprint is of all items)
  const decisions = items.decisions.filter((d) => mayDecideNow(d.contract?.approvers));
  const effects = items.effects.filter((m) => m.effectApprovals.some((e) => mayDecideNow(e.approvers)));
  const calls = effects.reduce((n, m) => n + m.effectApprovals.filter((e) => mayDecideNow(e.approvers)).length, 0);
  const approvals = items.approvals.filter((a) => mayDecideNow(a.approvers));
  const body = html`
    ${unansweredBanners(items.unanswered)}
    <h2>Decisions (${decisions.length})</h2>
    ${decisions.length === 0 ? html`<p>Nothing waits for a decision.</p>` : ''}
    ${decisions.map((d) => decisionCard(ctx, { missionId: d.id, agent: d.agent, input: d.input, pending: d.pending, contract: d.contract }))}
    <h2>Mission effects to approve (${calls})</h2>
    ${effects.length === 0 ? html`<p>No mission effect waits for approval.</p>` : ''}
    ${effects.map((m) => effectsCard(ctx, m))}
    <h2>Plan steps to approve (${approvals.length})</h2>
    ${approvals.length === 0 ? html`<p>No plan step waits for approval.</p>` : ''}
    ${approvals.map((a) => stepApprovalCard(ctx, a.planId, a.agent, a, a.steps, a.classes))}
    <h2>Plans to review (${reviews.length})</h2>
    ${reviews.length === 0 ? html`<p>No plan waits for review.</p>` : ''}
    ${reviews.map(
      (r) => html`<div class="card review">
        <p>${statusBadge(WAITING_FOR_YOU)} · plan <a href="/plans/${encodeURIComponent(r.planId)}">${r.planId}</a> (${r.agent}), version ${r.version}: review it, then Start</p>
        <ol>${r.steps.map((s) => html`<li>${s.description} <small><code>${s.id}</code></small></li>`)}</ol>
        <p><a href="/plans/${encodeURIComponent(r.planId)}">Review the plan</a></p>
      </div>`,
    )}
    ${recentBox(ctx.recent?.all() ?? [])}`;
  return page('Inbox', body, { live: `/live/inbox?seen=${fingerprint(items)}` });
}

export interface RunningConsole {
  url: string;
  /** the one-time link that signs a browser in (the console's own session), null with other authentication */
  loginUrl: string | null;
  /** another one-time link (for another browser), null with other authentication */
  newLoginUrl(): string | null;
  close(): Promise<void>;
}

/**
 * Serves the console. On loopback with no other authentication it makes its own session,
 * entered through the one-time `loginUrl`; any other host needs tokens or a proxy. Tokens
 * and the tokens file are checked before it listens.
 */
export async function startConsole(opts: ConsoleOptions & { host?: string; port?: number }): Promise<RunningConsole> {
  const host = opts.host ?? '127.0.0.1';
  const given = opts.token !== undefined || opts.tokensFile !== undefined || opts.proxy !== undefined || opts.noAuth;
  if (!given && !isLoopbackName(host))
    throw new Error(
      `the console binds to ${host}, reachable from other machines: give a token (--token, --tokens-file or NAVIGATOR_CONSOLE_TOKEN) or --trust-proxy-header behind an authenticating proxy`,
    );
  if (opts.tokensFile !== undefined) await new TokenSet({ tokensFile: opts.tokensFile }).check();
  const session = given ? undefined : new LoginSession();
  const streams = new LiveStreams();
  const audits = new ConsoleAudits(opts.navigator.client);
  const app = createConsoleApp({ ...opts, host, session }, streams, audits);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 8233 }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const newLoginUrl = () => (session ? `${url}/?login=${session.newCode()}` : null);
  return {
    url,
    loginUrl: newLoginUrl(),
    newLoginUrl,
    close: async () => {
      await streams.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await audits.close();
    },
  };
}
