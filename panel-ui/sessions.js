// Sessions (MCP sessions and /agent connections) and open tabs, live.

import {
  $, h, setText, syncRows, toggleEmpty, togglePill, toast, describeError,
  formatTime, formatFull, formatAgo, shortId,
} from './dom.js';

export function initSessions({ call, showRequests }) {
  let you = null;
  let lastActive = new Map(); // session id -> local ms of the last activity
  let loggedIn = false;

  // ---- sessions -------------------------------------------------------------

  async function endSession(id, button) {
    button.disabled = true;
    try {
      await call('session_end', { id });
      toast('Session ended', 'ok');
    } catch (error) {
      toast(`Could not end the session: ${describeError(error)}`, 'error');
      button.disabled = false;
    }
  }

  function createSession(session) {
    const tr = h('tr', { dataset: { sessionId: session.id } });
    const end = h('button', { class: 'button small danger-outline', type: 'button', dataset: { action: 'end' } }, 'End');
    end.addEventListener('click', () => endSession(tr.dataset.sessionId, end));
    tr.append(
      h('td', { class: 'client' },
        h('span', { class: 'client-name' }),
        h('span', { class: 'client-version muted' }),
        h('span', { class: 'session-id muted' })),
      h('td', { class: 'kind' }),
      h('td', { class: 'context' }),
      h('td', { class: 'created' }),
      h('td', { class: 'active' }),
      h('td', { class: 'num calls' }),
      h('td', { class: 'actions' }, end));
    return tr;
  }

  function updateSession(tr, session) {
    const mine = session.id === you;
    tr.dataset.transport = session.transport;
    tr.classList.toggle('mine', mine);
    const client = session.client;
    let name = client && client.name ? client.name : '';
    if (!name) name = session.transport === 'panel' ? 'Control panel' : session.transport === 'agent' ? 'WebSocket client' : 'Unnamed client';
    setText(tr.querySelector('.client-name'), name);
    setText(tr.querySelector('.client-version'), client && client.version ? client.version : '');
    togglePill(tr.querySelector('.client'), 'you-pill', 'this panel', mine, { append: true });
    const idEl = tr.querySelector('.session-id');
    setText(idEl, shortId(session.id));
    idEl.title = `Session ${session.id}`;
    let kind = session.transport === 'mcp'
      ? (session.protocol_version || '—')
      : session.transport === 'panel' ? 'panel' : 'agent';
    // A client of the stateless revision has no session to end: each of
    // its requests stands alone, and the row is the client as it names itself.
    if (session.stateless) kind += ' · stateless';
    setText(tr.querySelector('.kind'), kind);
    // The context its calls work in (a closed one: none until its next call).
    tr.dataset.context = session.context || '';
    setText(tr.querySelector('.context'), session.context || '—');
    tr.dataset.stateless = session.stateless ? 'true' : 'false';
    const created = tr.querySelector('.created');
    setText(created, formatTime(session.created * 1000));
    created.title = formatFull(session.created * 1000);
    setText(tr.querySelector('.calls'), String(session.calls ?? 0));
    // Last active: counted locally from idle_ms so it ages between pushes.
    lastActive.set(session.id, Date.now() - (session.idle_ms || 0));
    refreshAge(tr);
    // The panel's own session cannot be ended from here, and a stateless
    // client has none.
    const end = tr.querySelector('[data-action="end"]');
    if ((mine || session.stateless) && end) end.remove();
  }

  function refreshAge(tr) {
    const at = lastActive.get(tr.dataset.sessionId);
    const cell = tr.querySelector('.active');
    if (at === undefined || !cell) return;
    setText(cell, formatAgo(Date.now() - at));
    cell.title = formatFull(at);
  }

  function renderSessions(sessions) {
    const all = Array.isArray(sessions) ? sessions : [];
    const byCreated = (a, b) => (a.created - b.created) || String(a.id).localeCompare(String(b.id));
    const mcp = all.filter((s) => s.transport === 'mcp').sort(byCreated);
    const agent = all.filter((s) => s.transport !== 'mcp').sort(byCreated);
    const ids = new Set(all.map((s) => s.id));
    lastActive = new Map([...lastActive].filter(([id]) => ids.has(id)));
    syncRows($('#sessions-mcp tbody'), mcp, (s) => s.id, createSession, updateSession);
    syncRows($('#sessions-agent tbody'), agent, (s) => s.id, createSession, updateSession);
    toggleEmpty('sessions-mcp', mcp.length === 0);
    toggleEmpty('sessions-agent', agent.length === 0);
    setText($('#sessions-count'), `${mcp.length} MCP · ${agent.length} WebSocket`);
  }

  // Ages tick every second without a push.
  setInterval(() => {
    for (const tr of document.querySelectorAll('#sessions tr[data-session-id]')) refreshAge(tr);
  }, 1000);

  // ---- tabs -----------------------------------------------------------------

  const note = $('#tabs-note');

  function tabNote(text) {
    setText(note, text || '');
    note.hidden = !text;
  }

  async function tabAction(tool, tr, button) {
    const index = Number(tr.dataset.tabIndex);
    button.disabled = true;
    try {
      await call(tool, { index });
      tabNote('');
    } catch (error) {
      if (error.code === 'NOT_LOGGED_IN') {
        tabNote('Log in first: tabs can be switched or closed once an identity is logged in.');
      } else {
        toast(`${tool === 'tab_close' ? 'Could not close the tab' : 'Could not switch to the tab'}: ${describeError(error)}`, 'error');
      }
    } finally {
      button.disabled = false;
    }
  }

  function createTab() {
    const tr = h('tr');
    const switchButton = h('button', { class: 'button small', type: 'button', dataset: { action: 'switch' } }, 'Switch');
    const closeButton = h('button', { class: 'button small danger-outline', type: 'button', dataset: { action: 'close' } }, 'Close');
    const requestsButton = h('button', { class: 'button small', type: 'button', dataset: { action: 'requests' } }, 'Requests');
    requestsButton.addEventListener('click', () => showRequests({ id: Number(tr.dataset.tabId), index: Number(tr.dataset.tabIndex) }));
    switchButton.addEventListener('click', () => tabAction('tab_switch', tr, switchButton));
    closeButton.addEventListener('click', () => tabAction('tab_close', tr, closeButton));
    tr.append(
      h('td', { class: 'num index' }),
      h('td', { class: 'title' }, h('span', { class: 'tab-title' })),
      h('td', { class: 'url' }, h('span', { class: 'tab-url' })),
      h('td', { class: 'actions' }, requestsButton, switchButton, closeButton));
    return tr;
  }

  function updateTab(tr, tab) {
    tr.dataset.tabIndex = String(tab.index);
    tr.dataset.tabId = String(tab.id);
    tr.classList.toggle('front', !!tab.front);
    tr.dataset.front = String(!!tab.front);
    setText(tr.querySelector('.index'), String(tab.index));
    const title = tab.title && tab.title.trim() ? tab.title : '(untitled)';
    const titleEl = tr.querySelector('.tab-title');
    setText(titleEl, title);
    titleEl.title = title;
    titleEl.classList.toggle('muted', !(tab.title && tab.title.trim()));
    const urlEl = tr.querySelector('.tab-url');
    setText(urlEl, tab.url || 'about:blank');
    urlEl.title = tab.url || '';
    const titleCell = tr.querySelector('.title');
    togglePill(titleCell, 'loading-pill', 'loading', !!tab.loading);
    togglePill(titleCell, 'front-pill', 'in front', !!tab.front);
    const switchButton = tr.querySelector('[data-action="switch"]');
    switchButton.setAttribute('aria-label', `Switch to tab ${tab.index}${tab.front ? ' (in front)' : ''}`);
    tr.querySelector('[data-action="close"]').setAttribute('aria-label', `Close tab ${tab.index}`);
    tr.querySelector('[data-action="requests"]').setAttribute('aria-label', `Requests of tab ${tab.index}`);
  }

  function renderTabs(tabs, contexts) {
    // The person's own context's; the others' show under Contexts.
    const own = (contexts || []).find((c) => c.default);
    const ownName = own ? own.context : 'default';
    const list = (Array.isArray(tabs) ? tabs : [])
      .filter((t) => (t.context ?? ownName) === ownName)
      .sort((a, b) => a.index - b.index);
    syncRows($('#tabs tbody'), list, (t) => t.id, createTab, updateTab);
    toggleEmpty('tabs', list.length === 0);
    setText($('#tabs-count'), list.length ? String(list.length) : '');
    if (loggedIn && note.textContent) tabNote('');
  }

  return {
    render(state) {
      you = state.you || null;
      loggedIn = !!(state.identity && state.identity.logged_in);
      renderSessions(state.sessions);
      renderTabs(state.tabs, state.contexts);
    },
  };
}
