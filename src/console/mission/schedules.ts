/**
 * Schedule pages: the schedules that start missions, and one schedule (what it starts and
 * when, what it did, the missions it started) with Pause / Unpause / Start one now /
 * Delete. The people who run a recurring job stop it for a holiday here without the CLI.
 */
import type { Hono } from 'hono';
import { ScheduleNotFoundError } from '@temporalio/client';
import { MissionRejected } from '../../client/mission/client.ts';
import type { MissionScheduleView } from '../../client/mission/schedules.ts';
import { type Fragment, html, page, pretty } from '../html.ts';
import type { ConsoleContext } from './pages.ts';

const when = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function every(ms: number): string {
  if (ms % 86_400_000 === 0) return `every ${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `every ${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `every ${ms / 60_000} min`;
  return `every ${ms / 1000} s`;
}

const timing = (v: MissionScheduleView) =>
  [...v.cron.map((c) => `cron ${c}`), ...v.every.map(every)].join(', ') + (v.timezone ? ` (${v.timezone})` : ' (UTC)');

function actions(ctx: ConsoleContext, v: MissionScheduleView): Fragment {
  const action = (what: string) => `/schedules/${encodeURIComponent(v.id)}/${what}`;
  const csrf = html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;
  const pause = v.paused
    ? html`<form class="inline" method="post" action="${action('unpause')}">${csrf}<button class="primary">Unpause</button></form>`
    : html`<form class="inline" method="post" action="${action('pause')}">${csrf}<input name="note" placeholder="why (shown with it)" size="24" /> <button>Pause</button></form>`;
  return html`<p>${pause}
    <form class="inline" method="post" action="${action('trigger')}">${csrf}<button>Start a mission now</button></form>
    <form class="inline" method="post" action="${action('delete')}">${csrf}<button class="danger">Delete</button></form></p>`;
}

async function schedulePage(ctx: ConsoleContext, id: string, problem?: string): Promise<string> {
  const schedule = ctx.navigator.missionSchedule(id);
  const [v, missions] = await Promise.all([schedule.describe(), schedule.missions()]);
  const body = html`${problem ? html`<div class="problem">Not done: ${problem}</div>` : ''}
    <div class="card">
      <p><span class="status">${v.paused ? 'paused' : 'active'}</span>${v.note ? html` (${v.note})` : ''}: starts a mission of agent <strong>${v.agent}</strong> ${timing(v)}</p>
      <p>When the last one still runs: <strong>${v.overlap.replace(/_/g, ' ')}</strong>. Started ${v.missionsStarted}, skipped ${v.skippedOverlap} while one ran, missed ${v.missedCatchupWindow}.</p>
      <p>Next: ${v.paused ? 'none while paused' : v.next.slice(0, 5).map(when).join(', ') || 'none'}</p>
      ${actions(ctx, v)}
    </div>
    <h2>Mission input</h2><pre>${pretty(v.input)}</pre>
    <h2>Missions it started</h2>
    <table><tr><th>mission</th><th>status</th><th>started</th></tr>
      ${missions.map((m) => html`<tr><td><a href="/missions/${encodeURIComponent(m.workflowId)}">${m.workflowId}</a></td><td>${m.status}</td><td>${when(m.startTime)}</td></tr>`)}
    </table>`;
  return String(await page(`Schedule ${id}`, body));
}

export function scheduleRoutes(app: Hono, ctx: ConsoleContext): void {
  app.get('/schedules', async (c) => {
    const rows = await ctx.navigator.listSchedules();
    const body = html`<table>
        <tr><th>schedule</th><th>state</th><th>next mission</th></tr>
        ${rows.map((s) => html`<tr><td><a href="/schedules/${encodeURIComponent(s.id)}">${s.id}</a></td><td>${s.paused ? `paused${s.note ? ` (${s.note})` : ''}` : 'active'}</td><td>${s.paused || !s.next ? '' : when(s.next)}</td></tr>`)}
      </table>
      ${rows.length ? '' : html`<p>No schedules start missions. Create one with <code>navigator schedule create AGENT --every 1h</code>.</p>`}`;
    return c.html(page('Schedules', body));
  });

  app.get('/schedules/:id', async (c) => {
    try {
      return c.html(await schedulePage(ctx, c.req.param('id')));
    } catch (err) {
      if (err instanceof ScheduleNotFoundError)
        return c.html(page('Not found', html`<div class="problem">No schedule ${c.req.param('id')}.</div>`), 404);
      throw err;
    }
  });

  app.post('/schedules/:id/:action', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const schedule = ctx.navigator.missionSchedule(id);
    const by = c.get('by');
    try {
      await schedule.describe(); // only schedules of missions are acted on here
      switch (c.req.param('action')) {
        case 'pause':
          await schedule.pause(String(form.note ?? '').trim() || `paused by ${by}`);
          break;
        case 'unpause':
          await schedule.unpause(`unpaused by ${by}`);
          break;
        case 'trigger':
          await schedule.trigger();
          break;
        case 'delete':
          await schedule.delete();
          return c.redirect('/schedules', 303);
        default:
          return c.html(page('Not found', html`<div class="problem">Unknown action.</div>`), 404);
      }
    } catch (err) {
      if (err instanceof ScheduleNotFoundError)
        return c.html(page('Not found', html`<div class="problem">No schedule ${id}.</div>`), 404);
      if (err instanceof MissionRejected) return c.html(await schedulePage(ctx, id, err.message), 400);
      throw err;
    }
    return c.redirect(`/schedules/${encodeURIComponent(id)}`, 303);
  });
}
