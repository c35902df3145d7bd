// Contexts: the person's own (default) and those agents opened, each with
// its own cookies, storage, tabs and window. The person can close any but
// their own (the agent working in it then gets NO_CONTEXT), log one out,
// and see each one's calls (the log, filtered) and its tabs' requests; and
// agents' routes, any of which they remove, with their yes or no to routes
// in their own window.

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

  // ---- agents' routes, in any context: the person removes any --------------

  async function removeRoute(tr, button) {
    button.disabled = true;
    try {
      await call('network_unroute', { id: Number(tr.dataset.routeId), context: tr.dataset.context });
      toast(`Removed route ${tr.dataset.routeId}`, 'ok');
    } catch (error) {
      toast(`Could not remove route ${tr.dataset.routeId}: ${describeError(error)}`, 'error');
      button.disabled = false;
    }
  }

  function createRoute() {
    const tr = h('tr');
    const removeButton = h('button', { class: 'button small danger-outline', type: 'button', dataset: { action: 'remove' } }, 'Remove');
    removeButton.addEventListener('click', () => removeRoute(tr, removeButton));
    tr.append(
      h('td', { class: 'context' }),
      h('td', { class: 'num id' }),
      h('td', { class: 'url' }),
      h('td', { class: 'does' }),
      h('td', { class: 'num matched' }),
      h('td', { class: 'actions' }, removeButton));
    return tr;
  }

  function updateRoute(tr, route) {
    tr.dataset.routeId = String(route.id);
    tr.dataset.context = route.context;
    setText(tr.querySelector('.context'), route.context);
    setText(tr.querySelector('.id'), String(route.id));
    const only = [route.method, route.type].filter(Boolean).join(' ');
    setText(tr.querySelector('.url'), only ? `${route.url} (${only})` : route.url);
    const status = route.status ? ` ${route.status}` : '';
    setText(tr.querySelector('.does'), `${route.action}${status}`);
    setText(tr.querySelector('.matched'), String(route.matched));
    tr.querySelector('[data-action="remove"]').setAttribute('aria-label', `Remove route ${route.id} in context ${route.context}`);
  }

  const allow = $('#routes-allow');
  allow.addEventListener('change', async () => {
    const allowed = allow.checked;
    allow.disabled = true;
    try {
      const result = await call('network_routes_allow', { allowed });
      toast(allowed ? 'Agents may now route the requests of your window'
        : `Agents can no longer route your window${result.removed ? `; ${result.removed} route(s) removed` : ''}`, 'ok');
    } catch (error) {
      allow.checked = !allowed;
      toast(`Could not change it: ${describeError(error)}`, 'error');
    } finally {
      allow.disabled = false;
    }
  });

  return {
    render(state) {
      const routes = state.routes && Array.isArray(state.routes.list) ? state.routes.list : [];
      syncRows($('#routes tbody'), routes, (r) => `${r.context}/${r.id}`, createRoute, updateRoute);
      toggleEmpty('routes', routes.length === 0);
      if (!allow.disabled) allow.checked = !!(state.routes && state.routes.persons_yes);
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
