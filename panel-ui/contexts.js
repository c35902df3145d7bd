// Contexts: the person's own (default) and those agents opened, each with
// its own cookies, storage, tabs and window. The person can close any but
// their own (the agent working in it then gets NO_CONTEXT), log one out,
// and see each one's calls (the log, filtered) and its tabs' requests.

import { $, h, setText, syncRows, toggleEmpty, toast, describeError } from './dom.js';

export function initContexts({ call, showCalls, showRequests }) {
  async function close(tr, button) {
    const context = tr.dataset.context;
    button.disabled = true;
    try {
      await call('context_close', { context });
      toast(`Closed context ${context}`, 'ok');
    } catch (error) {
      toast(`Could not close context ${context}: ${describeError(error)}`, 'error');
      button.disabled = false;
    }
  }

  async function logout(tr, button) {
    const context = tr.dataset.context;
    button.disabled = true;
    try {
      await call('context_logout', { context });
      toast(`Logged context ${context} out`, 'ok');
    } catch (error) {
      toast(`Could not log context ${context} out: ${describeError(error)}`, 'error');
    } finally {
      button.disabled = false;
    }
  }

  function create() {
    const tr = h('tr');
    const logoutButton = h('button', { class: 'button small', type: 'button', dataset: { action: 'logout' } }, 'Log out');
    const closeButton = h('button', { class: 'button small danger-outline', type: 'button', dataset: { action: 'close' } }, 'Close');
    const callsButton = h('button', { class: 'button small', type: 'button', dataset: { action: 'calls' } }, 'Calls');
    callsButton.addEventListener('click', () => showCalls(tr.dataset.context));
    logoutButton.addEventListener('click', () => logout(tr, logoutButton));
    closeButton.addEventListener('click', () => close(tr, closeButton));
    tr.append(
      h('td', { class: 'name' }),
      h('td', { class: 'kind' }),
      h('td', { class: 'identity' }),
      h('td', { class: 'num sessions' }),
      h('td', { class: 'num tabs' }),
      h('td', { class: 'actions' }, callsButton, logoutButton, closeButton));
    return tr;
  }

  function update(tr, context) {
    tr.dataset.context = context.context;
    tr.dataset.default = String(!!context.default);
    setText(tr.querySelector('.name'), context.default ? `${context.context} (yours)` : context.context);
    const kind = context.default ? 'your profile' : context.ephemeral ? 'ephemeral' : 'kept';
    setText(tr.querySelector('.kind'), kind);
    setText(tr.querySelector('.tabs'), String(context.tabs));
    setText(tr.querySelector('.sessions'), String(context.sessions ?? 0));
    tr.querySelector('[data-action="calls"]').setAttribute('aria-label', `Calls in context ${context.context}`);
    setText(tr.querySelector('.identity'), context.identity || 'Not logged in');
    const loggedIn = !!context.identity && context.identity !== 'Not logged in';
    const logoutButton = tr.querySelector('[data-action="logout"]');
    logoutButton.hidden = !!context.default || !loggedIn;
    logoutButton.setAttribute('aria-label', `Log context ${context.context} out`);
    const closeButton = tr.querySelector('[data-action="close"]');
    closeButton.hidden = !!context.default;
    closeButton.setAttribute('aria-label', `Close context ${context.context}`);
  }

  // ---- the tabs of agents' contexts (each context's window has them) --------

  function createTab() {
    const tr = h('tr');
    const requestsButton = h('button', { class: 'button small', type: 'button', dataset: { action: 'requests' } }, 'Requests');
    requestsButton.addEventListener('click', () => showRequests({
      id: Number(tr.dataset.tabId), index: Number(tr.dataset.tabIndex), context: tr.dataset.context,
    }));
    tr.append(
      h('td', { class: 'context' }),
      h('td', { class: 'num index' }),
      h('td', { class: 'title' }),
      h('td', { class: 'url' }),
      h('td', { class: 'actions' }, requestsButton));
    return tr;
  }

  function updateTab(tr, tab) {
    tr.dataset.tabId = String(tab.id);
    tr.dataset.tabIndex = String(tab.index);
    tr.dataset.context = tab.context;
    setText(tr.querySelector('.context'), tab.context);
    setText(tr.querySelector('.index'), String(tab.index));
    const title = tab.title && tab.title.trim() ? tab.title : '(untitled)';
    // A tab whose page ended: agents acting on it get PAGE_CRASHED until it loads again.
    setText(tr.querySelector('.title'), tab.crashed ? `💥 page ${tab.crashed.replaceAll('_', ' ')}: ${title}` : title);
    setText(tr.querySelector('.url'), tab.url || 'about:blank');
    tr.querySelector('.url').title = tab.url || '';
    tr.querySelector('[data-action="requests"]')
      .setAttribute('aria-label', `Requests of tab ${tab.index} in context ${tab.context}`);
  }

  return {
    render(state) {
      const list = Array.isArray(state.contexts) ? state.contexts : [];
      syncRows($('#contexts tbody'), list, (c) => c.context, create, update);
      toggleEmpty('contexts', list.length === 0);
      setText($('#contexts-count'), list.length ? String(list.length) : '');
      const agents = new Set(list.filter((c) => !c.default).map((c) => c.context));
      const tabs = (Array.isArray(state.tabs) ? state.tabs : [])
        .filter((t) => agents.has(t.context))
        .sort((a, b) => a.context.localeCompare(b.context) || a.index - b.index);
      syncRows($('#context-tabs tbody'), tabs, (t) => t.id, createTab, updateTab);
      toggleEmpty('context-tabs', tabs.length === 0);
    },
  };
}
