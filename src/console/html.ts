/**
 * Page building for the console: hono's `html` tagged template escapes every value put
 * into it (a journal value or tool argument holding `<script>` renders as text); only
 * fragments built with `html` themselves are inserted as markup.
 */
import { createHash } from 'node:crypto';
import { tryGetContext } from 'hono/context-storage';
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
.problem,.reorder-problem{background:#fff0f0;border:1px solid #e3a0a0;color:#8a1c1c;padding:8px 12px;border-radius:4px;margin:8px 0}
.ok{color:#17692f}.status{font-weight:600}
button{font:inherit;padding:4px 12px;border-radius:4px;border:1px solid #8897ad;background:#fff;cursor:pointer}
button.primary{background:#1f5fd1;color:#fff;border-color:#1f5fd1}button.danger{border-color:#b33;color:#b33}
textarea{width:100%;font:13px ui-monospace,monospace}
form.inline{display:inline}
input,select,textarea{max-width:100%;box-sizing:border-box}
.wide{overflow-x:auto}
ol.reorder{padding-left:24px}ol.reorder li{background:#fff;border:1px solid #dde1e7;border-radius:4px;padding:8px;margin:4px 0;cursor:grab}
figure.dag{margin:8px 0 16px}figure.dag svg{max-width:100%;height:auto;display:block}figure.dag figcaption{font-size:13px;color:#5a6578}
.dag .edge{fill:none;stroke:#8897ad;stroke-width:1.5}.dag marker path{fill:#8897ad}
.dag rect{fill:#fff;stroke:#8897ad;stroke-width:1.5}.dag text{font:13px system-ui,sans-serif;fill:#1d2430}.dag text.id{font-weight:600}.dag text.st{font-size:12px}
.dag .s-completed rect{fill:#e6f4ea;stroke:#17692f}.dag .s-running rect{fill:#e8f0fe;stroke:#1f5fd1}
.dag .s-awaiting_approval rect,.dag .s-awaiting_answer rect{fill:#fff3c4;stroke:#b08800;stroke-width:2.5}
.dag .s-failed rect{fill:#fff0f0;stroke:#b33}.dag .s-skipped rect,.dag .s-blocked rect{fill:#f1f2f4;stroke:#aab}
.dag a:focus rect,.dag a:hover rect{stroke-width:3}
details.engineer{border-color:#c9b27c;background:#fffdf6}details.engineer summary{cursor:pointer;min-height:44px}details.engineer summary h2{display:inline;font-size:1.1em}
ul.checklist{list-style:none;padding:0;margin:0}ul.checklist li{padding:4px 0}ul.checklist li.done>span:first-child{color:#17692f}ul.checklist .summary{color:#3d4757}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.approval h3{margin:0 0 6px}.asked{color:#5a6578;margin:0 0 8px}
.status.waiting{background:#fff3c4;color:#6b4e00;padding:1px 6px;border-radius:3px}
.effects{background:#f3f6fb;border-left:4px solid #1f5fd1;padding:4px 12px;margin:8px 0}.effects p{margin:4px 0}
.irreversible{color:#b33}
dl.values{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dl.values dt{font-weight:600}dl.values dd{margin:0}
dl.values small{font-weight:normal;color:#5a6578}
pre.diff{background:#fafbfc;border:1px solid #dde1e7;padding:6px}pre.diff .add{background:#e6ffec;color:#116329}pre.diff .del{background:#ffebe9;color:#82071e}
pre.text{background:#fafbfc;border:1px solid #dde1e7;padding:6px}
pre.code{background:#fbfbfd;border:1px solid #dde1e7;border-left:4px solid #8897ad;padding:6px 8px}pre.code .c{color:#5a6578;font-style:italic}pre.code .s{color:#116329}pre.code .k{color:#6f2da8}pre.code .t{color:#1f5fd1;font-weight:600}
pre.preview{color:#3d4757;border-bottom-style:dashed}details.fold summary,details.answer summary{cursor:pointer;color:#1f5fd1;padding:6px 0}
article.program{border-top:1px solid #dde1e7;padding:8px 0;margin-top:8px}article.program h3{margin:4px 0}
.field-problem{color:#8a1c1c;font-weight:600}[aria-invalid=true]{border:2px solid #b33}
fieldset{border:1px solid #dde1e7;border-radius:4px;margin:8px 0}label.check{display:inline-flex;align-items:center;gap:4px;min-height:32px;margin-right:12px}
.label{font-weight:600;margin:8px 0 4px}.note{color:#5a6578}.error{color:#8a1c1c}
:target{outline:3px solid #b08800;outline-offset:2px}
/* a phone: bigger tap targets, 16 px fields (no zoom on focus), tables as stacked cards */
@media (max-width:700px){
  body{font-size:16px}main{padding:12px}header{padding:6px 12px}
  button,input,select{min-height:44px;font-size:16px}button{min-width:44px;margin:2px 0}
  input:not([type=hidden]),select,textarea{width:100%}
  label.check{min-height:44px}label.check input{width:44px}
  form.inline{display:block;margin:6px 0}
  table,tbody,tr,td,th{display:block;width:auto}
  table{border:0;background:none}
  tr:has(th){display:none}
  tr{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:0 0 10px;padding:4px 0}
  td{border:0;border-bottom:1px solid #eef1f5}
  dl.values{grid-template-columns:1fr}dl.values dd{margin:0 0 6px}
  td[data-label]::before{content:attr(data-label);display:block;font-size:12px;color:#5a6578;text-transform:uppercase}
}
`;

/** Who the request acts as (the token's name, else the console's user): decisions are recorded under it. */
function actingUser(): Fragment | string {
  const by = tryGetContext()?.get('by');
  const roles = tryGetContext()?.get('roles') ?? [];
  return by
    ? html`<span class="who">You act as <strong>${by}</strong>${roles.length ? html` <small>(${roles.join(', ')})</small>` : ''}</span>`
    : '';
}

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
      ${actingUser()}
    </header>
    <main>
      <h1>${title}</h1>
      ${body}
    </main>
    <script src="/assets/live.js" ${opts.live ? html`data-live="${opts.live}"` : ''}></script>
  </body>
</html>`;
}

/**
 * A short digest of what a page was rendered from: its live stream compares its first
 * reading with it, so a change between the render and that reading is announced too.
 */
export const fingerprint = (value: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('hex')
    .slice(0, 20);

/** JSON shown readably (escaped by the caller's template). */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'null';

/** Most characters of a value a page shows whole; a larger one (a stored 3 MB result) is shown by its start and size. */
export const SHOWN_VALUE_CHARS = 16 * 1024;
const SHOWN_START_CHARS = 2048;

const sizeText = (chars: number) =>
  chars < 1024 * 1024
    ? `${(chars / 1024).toFixed(0)} K characters`
    : `${(chars / 1024 / 1024).toFixed(1)} M characters`;

/**
 * A JSON value in a page: whole when it is small; else its start, its size, and a link
 * that downloads the whole value (`download`), so a page with a 20 MB result stays a page.
 */
export function valueBlock(value: unknown, download?: string): Fragment {
  const text = pretty(value);
  if (text.length <= SHOWN_VALUE_CHARS) return html`<pre>${text}</pre>`;
  const link = download ? html` · <a href="${download}" download>download the whole value</a>` : '';
  return html`<pre>${text.slice(0, SHOWN_START_CHARS)}…</pre><p class="note">${sizeText(text.length)} in all${link}</p>`;
}
