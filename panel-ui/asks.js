// Agents asking the person to take over a tab (ask_person): each request
// with its message, a note to send back, and Done / Can't. The window shows
// the same request over its tab; whichever answers first ends it. An
// address with #ask=ID (the link an agent's client shows its user) opens
// the panel at that request: shown first, with its tab's address, and its
// tab brought forward once.

import { $, h, setText, syncRows, toast, describeError } from './dom.js';
import { askInAddress } from './key.js';

export function initAsks({ call }) {
  const section = $('#asks-section');
  const list = $('#asks');
  let expiries = new Map(); // ask id -> local ms when it times out
  let focused = askInAddress();
  let broughtForward = null; // the focused request whose tab was brought forward
  window.addEventListener('hashchange', () => { focused = askInAddress(); });

  /** Marks the request the address names, with its tab's address. */
  function mark(li, ask, tab) {
    const mine = ask.id === focused;
    li.classList.toggle('focused', mine);
    li.dataset.focused = String(mine);
    li.querySelector('.ask-url').hidden = !mine || !tab;
    if (mine && tab) setText(li.querySelector('.ask-url'), `Its tab: ${tab.url}`);
  }

  /** Once shown, brings the named request into view and its tab forward, once. */
  function bringForward(asks, tabs) {
    const li = list.querySelector('li.focused');
    if (!li || broughtForward === focused) return;
    broughtForward = focused;
    li.scrollIntoView({ block: 'center' });
    li.querySelector('input[name="note"]').focus({ preventScroll: true });
    // A tab of the person's own context comes forward; an agent's
    // context's tab is in its own window, in front since the request.
    const ask = asks.find((a) => a.id === focused);
    const tab = ask && tabs.find((t) => t.id === ask.tab);
    if (tab && Number.isInteger(tab.index)) call('tab_switch', { index: tab.index }).catch(() => {});
  }

  async function answer(li, reply, buttons) {
    for (const b of buttons) b.disabled = true;
    const note = li.querySelector('input[name="note"]');
    try {
      await call('ask_answer', { id: Number(li.dataset.key), answer: reply, note: note.value });
      note.value = '';
      toast(reply === 'done' ? 'Told the agent it is done' : 'Told the agent you can\'t', 'ok');
    } catch (error) {
      toast(`Could not answer: ${describeError(error)}`, 'error');
      for (const b of buttons) b.disabled = false;
    }
  }

  function create(ask) {
    const li = h('li', { class: 'prompt ask' });
    const id = `ask-note-${ask.id}`;
    const done = h('button', { class: 'button small primary', type: 'button', dataset: { answer: 'done' } }, 'Done');
    const cant = h('button', { class: 'button small danger-outline', type: 'button', dataset: { answer: 'declined' } }, 'Can\'t');
    const buttons = [done, cant];
    done.addEventListener('click', () => answer(li, 'done', buttons));
    cant.addEventListener('click', () => answer(li, 'declined', buttons));
    li.append(
      h('p', { class: 'ask-who' }, h('strong', { class: 'asker' }), h('span', { class: 'ask-tab muted' })),
      h('p', { class: 'ask-message' }),
      h('p', { class: 'ask-url muted', hidden: true }),
      h('p', { class: 'ask-agent warning', hidden: true },
        'An agent ran its own script in this tab or routed its requests: what you type there may reach it.'),
      h('div', { class: 'field' },
        h('label', { for: id }, 'Note the agent will read ', h('span', { class: 'optional' }, '(optional, never a password or key)')),
        h('input', { id, name: 'note', type: 'text', autocomplete: 'off', maxlength: '2000' })),
      h('div', { class: 'button-row' }, done, cant, h('span', { class: 'prompt-left muted' })));
    return li;
  }

  function update(li, ask, tabs) {
    const tab = tabs.find((t) => t.id === ask.tab);
    // The name is what the client calls itself (the browser keeps one short line of it).
    setText(li.querySelector('.asker'), ask.asker ? `An agent calling itself “${ask.asker}”` : 'An agent that gave no name');
    setText(li.querySelector('.ask-tab'), tab ? ` asks you, in tab ${tab.index} (${tab.title || tab.url}):` : ' asks you:');
    setText(li.querySelector('.ask-message'), ask.message);
    li.querySelector('.ask-agent').hidden = ask.agent_scripted !== true;
    li.dataset.tab = String(ask.tab);
    mark(li, ask, tab);
    refreshLeft(li);
  }

  function refreshLeft(li) {
    const at = expiries.get(Number(li.dataset.key));
    if (at === undefined) return;
    const left = Math.max(0, Math.round((at - Date.now()) / 1000));
    setText(li.querySelector('.prompt-left'), `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`);
  }

  setInterval(() => { for (const li of list.children) refreshLeft(li); }, 1000);

  return {
    render(state) {
      const asks = Array.isArray(state.asks) ? [...state.asks] : [];
      // The request the address names comes first.
      asks.sort((a, b) => Number(b.id === focused) - Number(a.id === focused));
      expiries = new Map(asks.map((a) => [a.id, Date.now() + (a.expires_in_ms || 0)]));
      syncRows(list, asks, (a) => a.id, create, (li, ask) => update(li, ask, state.tabs || []));
      section.hidden = asks.length === 0;
      bringForward(asks, state.tabs || []);
      setText($('#asks-count'), asks.length ? String(asks.length) : '');
    },
  };
}
