/** The one script the console's pages load (`/assets/live.js`): confirmations, local times, labelled stacked tables, drag-and-drop order, live reload, the live pass. Every form also works without it (no confirmation then). */

/**
 * The script of every page: a button with `data-confirm` asks before its form is sent (an
 * irreversible approval, an engineer action); times are shown in the reader's own zone;
 * with `data-live`, the page reloads when its server-sent event stream says something
 * changed (the stream compares with `seen`, what the page was rendered from).
 */
export const PAGE_SCRIPT = `(() => {
  const me = document.currentScript;
  let source = null;
  let passSource = null;
  let leaving = false;
  document.addEventListener('submit', (e) => {
    const ask = e.submitter && e.submitter.dataset.confirm;
    if (ask && !window.confirm(ask)) { e.preventDefault(); return; }
    // a form being sent navigates by itself: a reload now would cancel it
    leaving = true;
    if (source) source.close();
    if (passSource) passSource.close();
  });
  const words = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const units = [['day', 864e5], ['hour', 36e5], ['minute', 6e4], ['second', 1e3]];
  const relative = (d) => {
    const ms = d.getTime() - Date.now();
    if (Math.abs(ms) < 5000) return 'just now';
    const [unit, size] = units.find(([, size]) => Math.abs(ms) >= size) || units[3];
    return words.format(Math.round(ms / size), unit);
  };
  const local = () => document.querySelectorAll('time[datetime]').forEach((t) => {
    const d = new Date(t.dateTime);
    t.textContent = relative(d) + ' (' + d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) + ')';
    t.title = d.toString();
  });
  local();
  setInterval(local, 30000);
  // on a phone the tables stack: each cell is labelled with its column's heading
  document.querySelectorAll('table').forEach((t) => {
    const heads = [...t.querySelectorAll('tr:first-child th')].map((th) => th.textContent.trim());
    t.querySelectorAll('tr').forEach((tr) => [...tr.children].forEach((td, i) => {
      if (td.tagName === 'TD' && heads[i] && !td.dataset.label) td.dataset.label = heads[i];
    }));
  });
  // drag and drop reorder: refused when a step would come before one it depends on
  document.querySelectorAll('form.reorder').forEach((form) => {
    const list = form.querySelector('ol.reorder');
    const problem = form.querySelector('.reorder-problem');
    let dragged = null;
    list.addEventListener('dragstart', (e) => { dragged = e.target.closest('li'); e.dataTransfer.setData('text/plain', dragged.dataset.step); });
    list.addEventListener('dragover', (e) => e.preventDefault());
    list.addEventListener('drop', (e) => {
      e.preventDefault();
      const target = e.target.closest('li');
      if (!dragged || !target || target === dragged) return;
      const items = [...list.children];
      const order = items.filter((li) => li !== dragged);
      const at = order.indexOf(target) + (items.indexOf(dragged) < items.indexOf(target) ? 1 : 0);
      order.splice(at, 0, dragged);
      const ids = order.map((li) => li.dataset.step);
      for (const li of order) {
        const late = (li.dataset.deps || '').split(' ').filter(Boolean).find((d) => ids.indexOf(d) > ids.indexOf(li.dataset.step));
        if (late) {
          problem.textContent = 'Not reordered: ' + li.dataset.step + ' depends on ' + late + ', so it must come after it.';
          problem.hidden = false;
          return;
        }
      }
      form.querySelector('input[name=order]').value = ids.join(', ');
      const send = document.createElement('input');
      send.type = 'hidden'; send.name = 'what'; send.value = 'reorder';
      form.appendChild(send);
      leaving = true;
      if (source) source.close();
      form.submit();
    });
  });
  // the pass in progress: its line, the program as the model writes it, its calls (no reload)
  const pass = document.querySelector('[data-live-pass]');
  if (pass) {
    passSource = new EventSource(pass.dataset.livePass);
    passSource.addEventListener('pass', (e) => {
      const v = JSON.parse(e.data);
      pass.querySelector('.live-line').textContent = v.line;
      const program = pass.querySelector('.live-program');
      program.textContent = v.program;
      program.hidden = !v.program;
      const calls = pass.querySelector('.live-calls');
      calls.replaceChildren(...v.calls.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
    });
  }
  if (!me.dataset.live) return;
  source = new EventSource(me.dataset.live);
  source.addEventListener('change', () => {
    const typing = document.activeElement && ['TEXTAREA', 'INPUT', 'SELECT'].includes(document.activeElement.tagName);
    if (!leaving && !typing) location.reload();
  });
})();`;
