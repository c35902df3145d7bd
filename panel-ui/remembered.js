// The identities remembered in this profile: log in with one (unlocking
// its key with its password), or forget it.

import {
  $, $$, h, setText, syncRows, togglePill, copyWithFeedback, toast, describeError,
  formatTime, formatFull, shortNpub, methodLabel,
} from './dom.js';
import { fieldOf } from './login-form.js';

/**
 * `identity()` says who is logged in; `onResult(result)` and
 * `onPending(url)` hear how a login ended, as for the login form.
 */
export function initRemembered({ call, identity, onResult, onPending }) {
  const list = $('#remembered');


  function details(entry) {
    const parts = [];
    if (entry.method === 'seed' && entry.account !== undefined && entry.account !== null) parts.push(`account ${entry.account}`);
    if (entry.method === 'nsigner') {
      if (entry.transport) parts.push(entry.transport);
      if (entry.device) parts.push(entry.device);
      if (entry.service) parts.push(entry.service);
      if (entry.index !== undefined && entry.index !== null) parts.push(`key ${entry.index}`);
    }
    if (entry.method === 'nip46' && entry.bunker_url) {
      try {
        const relays = new URL(entry.bunker_url).searchParams.getAll('relay')
          .map((relay) => relay.replace(/^wss?:\/\//, '').replace(/\/$/, ''));
        if (relays.length) parts.push(`via ${relays.join(', ')}`);
      } catch {
        // not a URL we can read: leave it out
      }
    }
    if (entry.has_encrypted_key) parts.push('key stored encrypted');
    return parts.join(' · ');
  }

  function rowError(li, name, text) {
    const slot = li.querySelector(`.field-error[data-for="${name}"]`) || li.querySelector('.row-error');
    setText(slot, text);
  }

  function clearRowErrors(li) {
    for (const el of $$('.field-error, .row-error', li)) setText(el, '');
    li.querySelector('input[name="password"]')?.removeAttribute('aria-invalid');
  }

  async function loginRemembered(li, entry, pw) {
    clearRowErrors(li);
    const params = { method: entry.method, remembered: entry.npub };
    if (pw !== undefined) params.password = pw;
    const tool = identity().logged_in ? 'switch_identity' : 'login';
    const buttons = $$('button', li);
    for (const b of buttons) b.disabled = true;
    li.setAttribute('aria-busy', 'true');
    try {
      const result = await call(tool, params);
      closeUnlock(li);
      if (result && result.pending) {
        onPending(result.pending.auth_url);
        toast('The bunker asks for approval: open the link in the Identity section.', 'info');
      } else {
        toast(`Logged in as ${shortNpub(entry.npub)}`, 'ok');
        onResult(result);
      }
    } catch (error) {
      const parts = fieldOf(error);
      const input = li.querySelector('input[name="password"]');
      if (parts && parts.field === 'password' && !li.querySelector('.unlock').hidden) {
        rowError(li, 'password', parts.text);
        input.setAttribute('aria-invalid', 'true');
      } else {
        setText(li.querySelector('.row-error'), describeError(error));
      }
      if (!li.querySelector('.unlock').hidden) input.focus();
    } finally {
      for (const b of buttons) b.disabled = false;
      updateRemembered(li, li._entry);
      li.removeAttribute('aria-busy');
      const input = li.querySelector('input[name="password"]');
      if (input) input.value = '';
    }
  }

  function openUnlock(li) {
    li.querySelector('.confirm').hidden = true;
    li.querySelector('.unlock').hidden = false;
    li.querySelector('.row-actions').hidden = true;
    li.querySelector('input[name="password"]').focus();
  }

  function closeUnlock(li) {
    li.querySelector('.unlock').hidden = true;
    li.querySelector('.row-actions').hidden = false;
    const input = li.querySelector('input[name="password"]');
    input.value = '';
    clearRowErrors(li);
  }

  function createRemembered(entry) {
    const li = h('li', { class: 'remembered-item', dataset: { npub: entry.npub } });
    const uid = `rem-${entry.pubkey || Math.random().toString(16).slice(2)}`;
    const npubCode = h('code', { class: 'npub' });
    const copy = h('button', { class: 'icon-button', type: 'button', 'aria-label': 'Copy npub' }, 'Copy');
    copy.addEventListener('click', () => copyWithFeedback(copy, li.dataset.npub));
    const loginButton = h('button', { class: 'button small', type: 'button', dataset: { action: 'login' } }, 'Log in');
    const forgetButton = h('button', { class: 'button small danger-outline', type: 'button', dataset: { action: 'forget' } }, 'Forget');

    // Password prompt for an encrypted key.
    const pw = h('input', {
      id: `${uid}-password`, name: 'password', type: 'password', autocomplete: 'current-password',
      'aria-describedby': `${uid}-password-error`,
    });
    const unlock = h('form', { class: 'unlock', hidden: true, novalidate: true },
      h('label', { for: `${uid}-password` }, 'Password for this key'),
      h('div', { class: 'unlock-row' }, pw,
        h('button', { class: 'button primary small', type: 'submit', dataset: { action: 'unlock' } }, 'Unlock'),
        h('button', { class: 'button small', type: 'button', dataset: { action: 'cancel' } }, 'Cancel')),
      h('p', { id: `${uid}-password-error`, class: 'field-error', dataset: { for: 'password' }, role: 'alert' }));
    const confirm = h('div', { class: 'confirm', hidden: true, role: 'group', 'aria-label': 'Confirm forgetting' },
      h('span', {}, 'Forget this identity? '),
      h('button', { class: 'button small danger', type: 'button', dataset: { action: 'forget-confirm' } }, 'Forget'),
      h('button', { class: 'button small', type: 'button', dataset: { action: 'forget-cancel' } }, 'Cancel'));

    li.append(
      h('div', { class: 'rem-main' },
        h('div', { class: 'rem-npub' }, npubCode, copy),
        h('div', { class: 'rem-meta' }, h('span', { class: 'method-pill' }), h('span', { class: 'rem-detail muted' }))),
      h('div', { class: 'row-actions' }, loginButton, forgetButton),
      unlock, confirm,
      h('p', { class: 'row-error', role: 'alert' }));

    loginButton.addEventListener('click', () => {
      const current = li._entry;
      if (current.has_encrypted_key) openUnlock(li);
      else loginRemembered(li, current);
    });
    unlock.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = pw.value;
      pw.value = '';
      if (value === '') {
        rowError(li, 'password', 'enter the password you chose when you remembered this key');
        pw.setAttribute('aria-invalid', 'true');
        pw.focus();
        return;
      }
      loginRemembered(li, li._entry, value);
    });
    unlock.querySelector('[data-action="cancel"]').addEventListener('click', () => {
      closeUnlock(li);
      loginButton.focus();
    });
    forgetButton.addEventListener('click', () => {
      li.querySelector('.row-actions').hidden = true;
      confirm.hidden = false;
      confirm.querySelector('[data-action="forget-confirm"]').focus();
    });
    confirm.querySelector('[data-action="forget-cancel"]').addEventListener('click', () => {
      confirm.hidden = true;
      li.querySelector('.row-actions').hidden = false;
      forgetButton.focus();
    });
    confirm.querySelector('[data-action="forget-confirm"]').addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      try {
        await call('identity_forget', { npub: li.dataset.npub });
        toast(`Forgot ${shortNpub(li.dataset.npub)}`, 'ok');
        li.classList.add('gone');
      } catch (error) {
        setText(li.querySelector('.row-error'), describeError(error));
        button.disabled = false;
      }
    });
    return li;
  }

  function updateRemembered(li, entry) {
    li._entry = entry;
    li.dataset.method = entry.method;
    const pill = li.querySelector('.method-pill');
    pill.dataset.method = entry.method;
    setText(pill, methodLabel(entry.method));
    const code = li.querySelector('.npub');
    setText(code, shortNpub(entry.npub));
    code.title = entry.npub;
    const when = entry.saved_at ? `saved ${formatTime(entry.saved_at * 1000)}` : '';
    const detail = [details(entry), when].filter(Boolean).join(' · ');
    const detailEl = li.querySelector('.rem-detail');
    setText(detailEl, detail);
    detailEl.title = entry.saved_at ? formatFull(entry.saved_at * 1000) : '';
    const { logged_in: loggedIn, npub } = identity();
    const current = loggedIn && npub === entry.npub;
    togglePill(li.querySelector('.rem-npub'), 'current-pill', 'logged in', current, { append: true });
    li.classList.toggle('current', current);
    const loginButton = li.querySelector('[data-action="login"]');
    setText(loginButton, current ? 'Logged in' : loggedIn ? 'Switch to' : 'Log in');
    loginButton.disabled = current;
  }

  function render(entries) {
    const items = Array.isArray(entries) ? entries : [];
    syncRows(list, items, (e) => e.npub, createRemembered, updateRemembered);
    $('#remembered-empty').hidden = items.length > 0;
    list.hidden = items.length === 0;
    setText($('#remembered-count'), items.length ? String(items.length) : '');
  }

  return { render };
}
