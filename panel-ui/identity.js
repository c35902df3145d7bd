// Identity: the status card, the header badge, log out / switch, the login
// form (one set of fields per method) and the remembered identities.

import {
  $, $$, h, setText, syncRows, togglePill, copyWithFeedback, toast, describeError,
  formatTime, formatFull, shortNpub, methodLabel,
} from './dom.js';

// Fields whose values are secret: emptied after every submit.
const SECRET_FIELDS = ['nsec', 'privkey_hex', 'mnemonic', 'passphrase', 'password', 'bunker_url'];
const NUMBER_FIELDS = ['account', 'index'];

const METHOD_HINTS = {
  local: 'Paste an nsec or a private key in hex. The key stays in the browser\'s memory and is never shown here again.',
  seed: 'Your 12 or 24 BIP-39 seed words; the key is derived for the account index (NIP-06).',
  readonly: 'Browse as this public key. Pages can read it, but nothing can be signed.',
  nip46: 'Signs through a remote signer (bunker) over Nostr relays; the key never leaves the signer.',
  nsigner: 'Signs on a hardware signer; the key never leaves the device.',
};

const REMEMBER_HINTS = {
  local: 'The key is stored only encrypted with a password.',
  seed: 'The derived key is stored only encrypted with a password.',
  readonly: 'Keeps the public key.',
  nip46: 'Keeps the bunker URL without its secret.',
  nsigner: 'Keeps the connection, device and key index.',
};

const DEVICE_FIELD = {
  serial: { label: 'Device path', placeholder: '/dev/ttyACM0', hint: 'The signer\'s serial device (USB).' },
  unix: { label: 'Socket path', placeholder: '/run/user/1000/nsigner.sock', hint: 'The Unix socket the signer listens on.' },
  tcp: { label: 'Host and port', placeholder: '127.0.0.1:7000', hint: 'host:port of the signer.' },
  qrexec: { label: 'Qube name', placeholder: 'vault', hint: 'The qube that holds the signer.' },
};

/** Only http(s) links are made clickable (an auth_url comes from a remote signer). */
function safeHttpUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The field a server error names, and its message without the field's prefix. */
function fieldOf(error) {
  if (!error || !error.field) return null;
  const prefix = `${error.field}: `;
  const message = error.message || '';
  return { field: error.field, text: message.startsWith(prefix) ? message.slice(prefix.length) : message };
}

export function initIdentity({ call }) {
  const form = $('#login-form');
  const methodSelect = $('#method-select');
  const submit = $('#login-submit');
  const remember = $('#f-remember');
  const passwordField = $('#password-field');
  const password = $('#f-password');
  const transport = $('#f-transport');
  const formError = $('#login-error');
  const formMessage = $('#login-message');

  let identity = { logged_in: false };
  let lastRemembered = null;
  let identityKey = '';
  let busy = false;
  // The auth_url from a login answer, shown until the state push carries it.
  let localAuthUrl = null;
  let localAuthTimer = null;

  function holdAuthUrl(url) {
    localAuthUrl = url || null;
    clearTimeout(localAuthTimer);
    localAuthTimer = setTimeout(() => {
      localAuthUrl = null;
      render(identity, true);
    }, 3000);
  }

  // ---- the form ------------------------------------------------------------

  function activeFieldset() {
    return form.querySelector(`fieldset[data-method="${methodSelect.value}"]`);
  }

  function showMethod() {
    const method = methodSelect.value;
    for (const fs of $$('fieldset[data-method]', form)) {
      const on = fs.dataset.method === method;
      fs.hidden = !on;
      fs.disabled = !on;
    }
    setText($('#method-hint'), METHOD_HINTS[method]);
    setText($('#hint-remember'), REMEMBER_HINTS[method]);
    showPassword();
    clearErrors();
  }

  function showPassword() {
    const needs = remember.checked && (methodSelect.value === 'local' || methodSelect.value === 'seed');
    passwordField.hidden = !needs;
    password.disabled = !needs;
  }

  function showTransport() {
    const kind = DEVICE_FIELD[transport.value] || DEVICE_FIELD.serial;
    setText($('#device-label'), kind.label);
    $('#f-device').placeholder = kind.placeholder;
    setText($('#hint-device'), kind.hint);
    const qrexec = transport.value === 'qrexec';
    $('#service-field').hidden = !qrexec;
    $('#f-service').disabled = !qrexec;
  }

  function clearErrors() {
    for (const el of $$('.field-error', form)) setText(el, '');
    for (const el of $$('[aria-invalid]', form)) el.removeAttribute('aria-invalid');
    formError.hidden = true;
    setText(formError, '');
  }

  function clearSecrets() {
    for (const name of SECRET_FIELDS) {
      for (const el of $$(`[name="${name}"]`, form)) el.value = '';
    }
    // Hide revealed secrets again.
    for (const button of $$('.reveal', form)) setRevealed(button, false);
  }

  /** The input of a field the person can see now, or null. */
  function visibleField(name) {
    const el = form.querySelector(`[name="${name}"]`);
    if (!el || el.matches(':disabled') || el.closest('[hidden]')) return null;
    return el;
  }

  function fieldError(name, text) {
    const el = visibleField(name);
    const slot = form.querySelector(`.field-error[data-for="${name}"]`);
    if (!el || !slot) return false;
    setText(slot, text);
    el.setAttribute('aria-invalid', 'true');
    return true;
  }

  function showFormError(text) {
    setText(formError, text);
    formError.hidden = false;
  }

  function showMessage(text) {
    setText(formMessage, text || '');
    formMessage.hidden = !text;
  }

  /** Puts an error from the server next to its field, or at the form. */
  function showCallError(error) {
    const parts = fieldOf(error);
    if (parts && fieldError(parts.field, parts.text)) {
      visibleField(parts.field)?.focus();
      return;
    }
    showFormError(error.code === 'INVALID_PARAMS' ? error.message : describeError(error));
  }

  function collect() {
    const method = methodSelect.value;
    const params = { method };
    const errors = [];
    for (const el of $$('input, textarea, select', activeFieldset())) {
      if (!el.name || el.matches(':disabled')) continue;
      const raw = el.value.trim();
      if (raw === '') continue;
      if (NUMBER_FIELDS.includes(el.name)) {
        if (!/^\d+$/.test(raw)) {
          errors.push([el.name, 'must be a whole number, 0 or more']);
          continue;
        }
        params[el.name] = Number(raw);
      } else if (el.name === 'mnemonic') {
        params.mnemonic = raw.split(/\s+/).join(' ');
      } else {
        params[el.name] = raw;
      }
    }
    if (remember.checked) {
      params.remember = true;
      if (!password.disabled && password.value !== '') params.password = password.value;
    }
    return { params, errors };
  }

  async function onSubmit(event) {
    event.preventDefault();
    if (busy) return;
    clearErrors();
    showMessage('');
    const { params, errors } = collect();
    // Secrets leave the page's fields whatever happens next.
    clearSecrets();
    if (errors.length) {
      for (const [name, text] of errors) fieldError(name, text);
      visibleField(errors[0][0])?.focus();
      return;
    }
    const tool = identity.logged_in ? 'switch_identity' : 'login';
    busy = true;
    submit.disabled = true;
    const label = submit.textContent;
    submit.textContent = params.method === 'nip46' ? 'Waiting for the bunker…'
      : params.method === 'nsigner' ? 'Asking the signer…' : 'Logging in…';
    form.setAttribute('aria-busy', 'true');
    try {
      const result = await call(tool, params);
      if (result && result.pending) {
        holdAuthUrl(result.pending.auth_url);
        showMessage('The bunker asks for approval: open the link above. This page updates when it is approved.');
        render(identity, true);
      } else {
        localAuthUrl = null;
        const npub = result && result.npub;
        toast(npub ? `Logged in as ${shortNpub(npub)}` : 'Logged in', 'ok');
        if (result && result.remembered) toast('Identity remembered on this computer', 'ok');
        resetForm();
        if (result && result.logged_in) render(result, true);
      }
    } catch (error) {
      showCallError(error);
    } finally {
      busy = false;
      submit.disabled = false;
      submit.textContent = label;
      form.removeAttribute('aria-busy');
      clearSecrets();
      updateSubmitLabel();
    }
  }

  /** After a login: secrets are gone already; "remember" is a choice made each time. */
  function resetForm() {
    remember.checked = false;
    showPassword();
  }

  function updateSubmitLabel() {
    if (busy) return;
    const switching = !!identity.logged_in;
    setText(submit, switching ? 'Switch identity' : 'Log in');
    setText($('#login-heading'), switching ? 'Switch to another identity' : 'Log in');
    $('#login-switch-note').hidden = !switching;
  }

  // Show / hide secrets.
  function setRevealed(button, on) {
    const input = document.getElementById(button.dataset.reveal);
    if (!input) return;
    input.type = on ? 'text' : 'password';
    button.setAttribute('aria-pressed', String(on));
    setText(button, on ? 'Hide' : 'Show');
  }
  for (const button of $$('.reveal', form)) {
    button.addEventListener('click', () => setRevealed(button, button.getAttribute('aria-pressed') !== 'true'));
  }

  methodSelect.addEventListener('change', showMethod);
  remember.addEventListener('change', showPassword);
  transport.addEventListener('change', showTransport);
  form.addEventListener('submit', onSubmit);
  // Typing in a field clears its error.
  form.addEventListener('input', (event) => {
    const name = event.target.name;
    if (!name) return;
    const slot = form.querySelector(`.field-error[data-for="${name}"]`);
    if (slot && slot.textContent) {
      setText(slot, '');
      event.target.removeAttribute('aria-invalid');
    }
  });

  // ---- status, badge, log out, switch ---------------------------------------

  $('#logout').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      const result = await call('logout', {});
      localAuthUrl = null;
      toast('Logged out', 'ok');
      if (result) render(result, true);
    } catch (error) {
      toast(`Could not log out: ${describeError(error)}`, 'error');
    } finally {
      button.disabled = false;
    }
  });

  $('#switch').addEventListener('click', () => {
    form.scrollIntoView({ behavior: 'smooth', block: 'start' });
    methodSelect.focus({ preventScroll: true });
  });

  $('#identity-badge-copy').addEventListener('click', (event) => {
    if (identity.npub) copyWithFeedback(event.currentTarget, identity.npub);
  });

  function authLink(url) {
    const href = safeHttpUrl(url);
    if (!href) {
      return h('p', { class: 'auth' }, 'The signer asks for approval at: ', h('code', { id: 'auth-url' }, url));
    }
    return h('p', { class: 'auth' },
      h('span', { class: 'auth-label' }, 'The signer asks for approval.'),
      h('a', { id: 'auth-url', class: 'button primary small', href, target: '_blank', rel: 'noopener noreferrer' },
        'Open the approval page'),
      h('span', { class: 'auth-url-text', title: href }, href));
  }

  function signerLine(status) {
    const method = status.method;
    let state; let text;
    if (method === 'local' || method === 'seed') {
      state = 'local';
      text = 'Signs here: the key is held in the browser\'s memory.';
    } else if (method === 'readonly') {
      state = 'none';
      text = 'Read-only: signing requests are refused.';
    } else if (status.signer_reachable === true) {
      state = 'reachable';
      text = 'Signer reachable.';
    } else if (status.signer_reachable === false) {
      state = 'unreachable';
      text = 'Signer not reachable: signing fails until it is back.';
    } else {
      state = 'unknown';
      text = 'Signer: not checked yet.';
    }
    return h('p', { id: 'signer-status', class: 'signer', dataset: { reachable: state } },
      h('span', { class: 'signer-dot', 'aria-hidden': 'true' }), text);
  }

  function render(status, force = false) {
    const key = JSON.stringify([status, localAuthUrl]);
    if (!force && key === identityKey) return;
    identityKey = key;
    identity = status || { logged_in: false };
    const box = $('#identity-status');
    const badge = $('#identity-badge');
    const badgeText = $('#identity-badge-text');
    const badgeCopy = $('#identity-badge-copy');
    const pendingUrl = identity.pending?.auth_url || (!identity.logged_in ? localAuthUrl : null);
    if (identity.logged_in) localAuthUrl = null;
    if (identity.logged_in || (!pendingUrl && !identity.pending)) showMessage('');

    const content = [];
    if (identity.logged_in) {
      badge.dataset.state = 'logged-in';
      setText(badgeText, `${methodLabel(identity.method)} · ${shortNpub(identity.npub)}`);
      badgeText.title = identity.npub || '';
      badgeCopy.hidden = false;
      const copy = h('button', { class: 'icon-button', type: 'button', id: 'identity-copy', 'aria-label': 'Copy npub' }, 'Copy');
      copy.addEventListener('click', () => copyWithFeedback(copy, identity.npub));
      content.push(
        h('p', { class: 'status-line' },
          h('span', { class: 'state-pill ok' }, 'Logged in'),
          h('span', { class: 'method-pill', dataset: { method: identity.method } }, methodLabel(identity.method))),
        h('div', { class: 'npub-line' },
          h('code', { class: 'npub', id: 'identity-npub' }, identity.npub || ''), copy),
        h('p', { class: 'pubkey-line' }, h('span', { class: 'muted' }, 'hex '),
          h('code', { class: 'pubkey' }, identity.pubkey || '')),
        signerLine(identity));
      if (identity.auth_url) content.push(authLink(identity.auth_url));
    } else if (pendingUrl || identity.pending) {
      badge.dataset.state = 'pending';
      setText(badgeText, 'Waiting for approval');
      badgeText.title = '';
      badgeCopy.hidden = true;
      content.push(
        h('p', { class: 'status-line' },
          h('span', { class: 'state-pill pending' }, 'Waiting for approval'),
          h('span', { class: 'method-pill' }, methodLabel(identity.pending?.method || 'nip46'))),
        pendingUrl ? authLink(pendingUrl) : h('p', { class: 'muted' }, 'The signer is asking for approval.'),
        h('p', { class: 'muted' }, 'The login completes by itself once you approve it.'));
    } else {
      badge.dataset.state = 'logged-out';
      setText(badgeText, 'Not logged in');
      badgeText.title = '';
      badgeCopy.hidden = true;
      content.push(
        h('p', { class: 'status-line' }, h('span', { class: 'state-pill off' }, 'Not logged in')),
        h('p', { class: 'muted' }, 'Browser tools answer NOT_LOGGED_IN until an identity is logged in. Log in below, or pick a remembered identity.'));
    }
    const hadFocus = box.contains(document.activeElement) ? document.activeElement.id : null;
    box.replaceChildren(...content);
    if (hadFocus) document.getElementById(hadFocus)?.focus();
    $('#identity-actions').hidden = !identity.logged_in;
    updateSubmitLabel();
    // The remembered rows say which one is logged in.
    if (lastRemembered) renderRemembered(lastRemembered);
  }

  showMethod();
  showTransport();
  updateSubmitLabel();

  // ---- remembered identities -----------------------------------------------

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
    const tool = identity.logged_in ? 'switch_identity' : 'login';
    const buttons = $$('button', li);
    for (const b of buttons) b.disabled = true;
    li.setAttribute('aria-busy', 'true');
    try {
      const result = await call(tool, params);
      closeUnlock(li);
      if (result && result.pending) {
        holdAuthUrl(result.pending.auth_url);
        render(identity, true);
        toast('The bunker asks for approval: open the link in the Identity section.', 'info');
      } else {
        toast(`Logged in as ${shortNpub(entry.npub)}`, 'ok');
        if (result && result.logged_in) render(result, true);
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
    const current = identity.logged_in && identity.npub === entry.npub;
    togglePill(li.querySelector('.rem-npub'), 'current-pill', 'logged in', current, { append: true });
    li.classList.toggle('current', current);
    const loginButton = li.querySelector('[data-action="login"]');
    setText(loginButton, current ? 'Logged in' : identity.logged_in ? 'Switch to' : 'Log in');
    loginButton.disabled = current;
  }

  function renderRemembered(entries) {
    const items = Array.isArray(entries) ? entries : [];
    lastRemembered = items;
    syncRows(list, items, (e) => e.npub, createRemembered, updateRemembered);
    $('#remembered-empty').hidden = items.length > 0;
    list.hidden = items.length === 0;
    setText($('#remembered-count'), items.length ? String(items.length) : '');
  }

  return {
    render(state) {
      render(state.identity || { logged_in: false });
      renderRemembered(state.remembered);
      // A damaged file was kept aside, never replaced: say where it is.
      const damaged = $('#remembered-damaged');
      damaged.hidden = !state.remembered_damaged;
      setText(damaged, state.remembered_damaged || '');
    },
  };
}
