/**
 * Page building for the console: hono's `html` tagged template escapes every value put
 * into it (a journal value or tool argument holding `<script>` renders as text); only
 * fragments built with `html` themselves are inserted as markup.
 */
import { html, raw } from 'hono/html';

export { html, raw };
export type Fragment = ReturnType<typeof html>;

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9;overflow-wrap:anywhere}
header{background:#1d2430;color:#fff;padding:10px 24px;display:flex;flex-wrap:wrap;gap:4px 20px;align-items:center}
header a{color:#cfe0ff;text-decoration:none;padding:10px 0;display:inline-block;min-width:44px;text-align:center}header strong{margin-right:12px}header .who{margin-left:auto;color:#cfe0ff}
main{padding:20px 24px;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff;margin:8px 0 20px}
th,td{border:1px solid #dde1e7;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}
pre,code{font:13px/1.4 ui-monospace,monospace}pre{white-space:pre-wrap;margin:0}
.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px 16px;margin:12px 0}
.problem{background:#fff0f0;border:1px solid #e3a0a0;color:#8a1c1c;padding:8px 12px;border-radius:4px;margin:8px 0}
.ok{color:#17692f}.status{font-weight:600}
button{font:inherit;padding:4px 12px;border-radius:4px;border:1px solid #8897ad;background:#fff;cursor:pointer}
button.primary{background:#1f5fd1;color:#fff;border-color:#1f5fd1}button.danger{border-color:#b33;color:#b33}
textarea{width:100%;font:13px ui-monospace,monospace}
form.inline{display:inline}
input,select,textarea{max-width:100%;box-sizing:border-box}
.wide{overflow-x:auto}
/* a phone: bigger tap targets, 16 px fields (no zoom on focus), tables as stacked cards */
@media (max-width:700px){
  body{font-size:16px}main{padding:12px}header{padding:6px 12px}
  button,input,select{min-height:44px;font-size:16px}button{min-width:44px;margin:2px 0}
  input:not([type=hidden]),select,textarea{width:100%}
  form.inline{display:block;margin:6px 0}
  table,tbody,tr,td,th{display:block;width:auto}
  table{border:0;background:none}
  tr:has(th){display:none}
  tr{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:0 0 10px;padding:4px 0}
  td{border:0;border-bottom:1px solid #eef1f5}
  td[data-label]::before{content:attr(data-label);display:block;font-size:12px;color:#5a6578;text-transform:uppercase}
}
`;

/** A whole page: the navigation, the body, and (optionally) live reload from `live`. */
export function page(title: string, body: Fragment | string, opts: { live?: string } = {}): Fragment {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · Navigator console</title>
    <style>
      ${raw(STYLE)}
    </style>
  </head>
  <body>
    <header>
      <strong>Navigator console</strong>
      <a href="/">Inbox</a><a href="/missions">Missions</a><a href="/plans">Plans</a><a href="/schedules">Schedules</a><a href="/start">Start</a>
    </header>
    <main>
      <h1>${title}</h1>
      ${body}
    </main>
    ${opts.live ? html`<script src="/assets/live.js" data-live="${opts.live}"></script>` : ''}
  </body>
</html>`;
}

/** JSON shown readably (escaped by the caller's template). */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'null';

/** The script that reloads a page when its live stream says something changed. */
export const LIVE_SCRIPT = `(() => {
  const me = document.currentScript;
  const source = new EventSource(me.dataset.live);
  let leaving = false;
  // a form being sent navigates by itself: a reload now would cancel it
  document.addEventListener('submit', () => { leaving = true; source.close(); });
  source.addEventListener('change', () => {
    const typing = document.activeElement && ['TEXTAREA', 'INPUT', 'SELECT'].includes(document.activeElement.tagName);
    if (!leaving && !typing) location.reload();
  });
})();`;
