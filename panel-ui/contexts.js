// Contexts: the person's own (default) and those agents opened, each with
// its own cookies, storage, tabs and window. The person can close any but
// their own; the agent working in it then gets NO_CONTEXT.

import { $, h, setText, syncRows, toggleEmpty, toast, describeError } from './dom.js';

export function initContexts({ call }) {
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
    logoutButton.addEventListener('click', () => logout(tr, logoutButton));
    closeButton.addEventListener('click', () => close(tr, closeButton));
    tr.append(
      h('td', { class: 'name' }),
      h('td', { class: 'kind' }),
      h('td', { class: 'identity' }),
      h('td', { class: 'num tabs' }),
      h('td', { class: 'actions' }, logoutButton, closeButton));
    return tr;
  }

  function update(tr, context) {
    tr.dataset.context = context.context;
    tr.dataset.default = String(!!context.default);
    setText(tr.querySelector('.name'), context.default ? `${context.context} (yours)` : context.context);
    const kind = context.default ? 'your profile' : context.ephemeral ? 'ephemeral' : 'kept';
    setText(tr.querySelector('.kind'), kind);
    setText(tr.querySelector('.tabs'), String(context.tabs));
    setText(tr.querySelector('.identity'), context.identity || 'Not logged in');
    const loggedIn = !!context.identity && context.identity !== 'Not logged in';
    const logoutButton = tr.querySelector('[data-action="logout"]');
    logoutButton.hidden = !!context.default || !loggedIn;
    logoutButton.setAttribute('aria-label', `Log context ${context.context} out`);
    const closeButton = tr.querySelector('[data-action="close"]');
    closeButton.hidden = !!context.default;
    closeButton.setAttribute('aria-label', `Close context ${context.context}`);
  }

  return {
    render(state) {
      const list = Array.isArray(state.contexts) ? state.contexts : [];
      syncRows($('#contexts tbody'), list, (c) => c.context, create, update);
      toggleEmpty('contexts', list.length === 0);
      setText($('#contexts-count'), list.length ? String(list.length) : '');
    },
  };
}
