// The live tool call log: newest first, at most 500 rows, filter by tool
// name / context / transport / errors only, pause and resume.

import { $, h, setText, formatClock, formatFull, formatMs, shortId } from './dom.js';

export const MAX_ROWS = 500;

const TRANSPORT_LABELS = { mcp: 'MCP', agent: '/agent', panel: 'panel' };

export function initLog({ showRequests }) {
  const tbody = $('#call-log tbody');
  const filterInput = $('#log-filter');
  const transportSelect = $('#log-transport');
  const contextSelect = $('#log-context');
  const errorsOnly = $('#log-errors');
  const pauseButton = $('#log-pause');
  const clearButton = $('#log-clear');

  let you = null;
  let paused = false;
  let held = []; // calls that came in while paused (oldest first)
  let total = 0; // rows in the table

  function matches(call) {
    const text = filterInput.value.trim().toLowerCase();
    if (text && !String(call.tool || '').toLowerCase().includes(text)) return false;
    if (transportSelect.value && call.transport !== transportSelect.value) return false;
    if (contextSelect.value && call.context !== contextSelect.value) return false;
    if (errorsOnly.checked && call.ok) return false;
    return true;
  }

  function row(call) {
    const mine = you && call.session === you;
    const client = call.client || (call.transport === 'panel' ? 'control panel' : shortId(call.session) || '—');
    const result = call.ok
      ? h('span', { class: 'result ok' }, 'ok')
      : h('span', { class: 'result error' }, call.code || 'error');
    const tr = h('tr', {
      class: call.ok ? '' : 'failed',
      dataset: {
        tool: call.tool || '',
        transport: call.transport || '',
        ok: String(!!call.ok),
        code: call.code || '',
        session: call.session || '',
        context: call.context || '',
      },
    },
    h('td', { class: 'time', title: formatFull(call.time) }, formatClock(call.time)),
    h('td', {}, h('span', { class: `transport-pill t-${call.transport}` }, TRANSPORT_LABELS[call.transport] || call.transport || '')),
    h('td', { class: 'client', title: call.session ? `Session ${call.session}` : '' },
      mine ? h('span', { class: 'you-pill' }, 'this panel') : client),
    h('td', { class: 'context' }, call.context || '—'),
    h('td', { class: 'tool' }, h('code', {}, call.tool || '')),
    h('td', { class: 'num duration' }, formatMs(call.ms)),
    h('td', {}, result),
    h('td', { class: 'requests' }, requestsLink(call)));
    tr._call = call;
    tr.hidden = !matches(call);
    return tr;
  }

  /** A link to the requests the call's tab started while it ran. */
  function requestsLink(call) {
    const range = call.requests;
    if (!range) return '';
    const count = range.last - range.first + 1;
    const label = count === 1 ? '1 request' : `${count} requests`;
    return h('button', {
      class: 'link-button',
      type: 'button',
      dataset: { action: 'requests', tab: String(range.tab) },
      'aria-label': `${label} of tab ${range.tab} during this ${call.tool || 'call'}`,
      on: { click: () => showRequests({ id: range.tab }, { first: range.first, last: range.last }) },
    }, label);
  }

  function trim() {
    while (total > MAX_ROWS && tbody.lastElementChild) {
      tbody.lastElementChild.remove();
      total -= 1;
    }
  }

  function updateCount() {
    let shown = 0;
    for (const tr of tbody.children) if (!tr.hidden) shown += 1;
    const filtered = shown !== total;
    let text = total === 0 ? '' : filtered ? `${shown} of ${total}` : `${total}`;
    if (paused && held.length) text += ` · ${held.length} waiting`;
    setText($('#log-count'), text);
    $('#log-empty').hidden = shown > 0;
    setText($('#log-empty'), total === 0 ? 'No tool calls yet.' : 'No call matches the filter.');
    $('#call-log').hidden = shown === 0;
  }

  /** Adds calls (oldest first) at the top. */
  function insert(calls) {
    if (!calls.length) return;
    const fragment = document.createDocumentFragment();
    for (let i = calls.length - 1; i >= 0; i -= 1) fragment.append(row(calls[i]));
    tbody.prepend(fragment);
    total += calls.length;
    trim();
    updateCount();
  }

  function applyFilter() {
    for (const tr of tbody.children) tr.hidden = !matches(tr._call);
    updateCount();
  }

  function setPaused(on) {
    paused = on;
    pauseButton.setAttribute('aria-pressed', String(on));
    pauseButton.classList.toggle('active', on);
    if (!on && held.length) {
      const batch = held;
      held = [];
      insert(batch);
    }
    setText(pauseButton, on ? 'Resume' : 'Pause');
    $('#log-section').classList.toggle('paused', on);
    updateCount();
  }

  filterInput.addEventListener('input', applyFilter);
  transportSelect.addEventListener('change', applyFilter);
  contextSelect.addEventListener('change', applyFilter);
  errorsOnly.addEventListener('change', applyFilter);
  pauseButton.addEventListener('click', () => setPaused(!paused));
  clearButton.addEventListener('click', () => {
    tbody.replaceChildren();
    total = 0;
    held = [];
    updateCount();
  });

  function add(call) {
    if (!call || typeof call !== 'object') return;
    if (paused) {
      held.push(call);
      if (held.length > MAX_ROWS) held.splice(0, held.length - MAX_ROWS);
      updateCount();
      return;
    }
    insert([call]);
  }

  /** The backlog sent on (re)connect: keep what is older, add the rest. */
  function replace(calls) {
    const list = Array.isArray(calls) ? calls : [];
    if (!list.length) {
      updateCount();
      return;
    }
    const first = list[0].time;
    // Drop rows the backlog repeats (they are at or after its first call).
    for (const tr of Array.from(tbody.children)) if (tr._call.time >= first) {
      tr.remove();
      total -= 1;
    }
    held = held.filter((c) => c.time < first);
    if (paused) {
      held.push(...list);
      if (held.length > MAX_ROWS) held.splice(0, held.length - MAX_ROWS);
      updateCount();
    } else insert(list);
  }

  updateCount();

  /** The context filter's choices: the open contexts and any the log names. */
  let open = [];
  function setContexts(contexts) {
    open = (contexts || []).map((c) => c.context);
    const names = new Set(open);
    for (const tr of tbody.children) if (tr._call.context) names.add(tr._call.context);
    if (contextSelect.value) names.add(contextSelect.value);
    const have = Array.from(contextSelect.options).slice(1).map((o) => o.value);
    const want = Array.from(names).sort();
    if (have.join('\n') === want.join('\n')) return;
    const chosen = contextSelect.value;
    contextSelect.replaceChildren(h('option', { value: '' }, 'All'),
      ...want.map((name) => h('option', { value: name }, name)));
    contextSelect.value = chosen;
  }

  /** Shows one context's calls only (from the Contexts section). */
  function showContext(name) {
    contextSelect.value = '';
    setContexts([...open, name].map((context) => ({ context })));
    contextSelect.value = name;
    applyFilter();
    $('#log-section').scrollIntoView({ block: 'start' });
  }

  return {
    setYou(id) {
      you = id;
    },
    setContexts,
    showContext,
    add,
    replace,
  };
}
