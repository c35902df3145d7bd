// The login form, made from the login tool's own declaration: the schema
// tools/list sends and each method's fields (the person-only `login_form`).
// A field added to the tool shows here without an edit; what is below only
// words it (labels, placeholders, hints) and adds what the schema cannot
// say (the device field's meaning follows the connection).

import { $, $$, h, setText, toast, describeError, shortNpub, methodLabel } from './dom.js';

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

// How each method is offered in the list.
const METHOD_OPTIONS = {
  local: 'Private key (nsec or hex)',
  seed: 'Seed words (BIP-39)',
  readonly: 'Read-only (npub, signs nothing)',
  nip46: 'Remote signer (NIP-46 bunker)',
  nsigner: 'Hardware signer (nsigner)',
};

// How each field is worded; a field not named here is labelled by its
// schema description, or its name.
const WORDING = {
  nsec: { label: 'nsec', placeholder: 'nsec1…' },
  privkey_hex: { label: 'Private key in hex', placeholder: '64 hex characters', or: true },
  mnemonic: { label: 'Seed words', placeholder: '12 or 24 words, separated by spaces', lines: 3 },
  account: { label: 'Account', hint: 'NIP-06 account index', narrow: true },
  passphrase: { label: 'Passphrase', optional: true },
  npub: { label: 'npub', placeholder: 'npub1…' },
  pubkey_hex: { label: 'Public key in hex', placeholder: '64 hex characters', or: true },
  bunker_url: {
    label: 'Bunker URL',
    placeholder: 'bunker://…?relay=wss://…&secret=…',
    hint: 'From your signer app. If it asks for approval, a link appears above.',
  },
  transport: {
    label: 'Connection',
    options: { serial: 'USB / serial', unix: 'Unix socket', tcp: 'TCP (host:port)', qrexec: 'Qubes qrexec' },
  },
  device: { label: 'Device path', placeholder: '/dev/ttyACM0', hint: '' },
  service: { label: 'qrexec service' },
  index: { label: 'Key index', narrow: true },
  remember: { label: 'Remember this identity on this computer', hint: '' },
  password: {
    label: 'Password to encrypt the key',
    hint: 'The key is stored only encrypted with this password (NIP-49).',
    autocomplete: 'new-password',
  },
};

// The device field means what the connection says.
const DEVICE_BY_TRANSPORT = {
  serial: { label: 'Device path', placeholder: '/dev/ttyACM0', hint: 'The signer\'s serial device (USB).' },
  unix: { label: 'Socket path', placeholder: '/run/user/1000/nsigner.sock', hint: 'The Unix socket the signer listens on.' },
  tcp: { label: 'Host and port', placeholder: '127.0.0.1:7000', hint: 'host:port of the signer.' },
  qrexec: { label: 'Qube name', placeholder: 'vault', hint: 'The qube that holds the signer.' },
};

/** The field a server error names, and its message without the field's prefix. */
export function fieldOf(error) {
  if (!error || !error.field) return null;
  const prefix = `${error.field}: `;
  const message = error.message || '';
  return { field: error.field, text: message.startsWith(prefix) ? message.slice(prefix.length) : message };
}

/** A show/hide button for a secret input. */
function revealButton(input, label) {
  const button = h('button', {
    class: 'reveal', type: 'button', 'aria-label': `Show ${label}`, 'aria-pressed': 'false',
  }, 'Show');
  button.addEventListener('click', () => setRevealed(button, input, button.getAttribute('aria-pressed') !== 'true'));
  button._input = input;
  return button;
}

function setRevealed(button, input, on) {
  input.type = on ? 'text' : 'password';
  button.setAttribute('aria-pressed', String(on));
  setText(button, on ? 'Hide' : 'Show');
}

/** The control for one field, from its schema type and wording. */
function control(field, schema, words) {
  const id = `f-${field.name}`;
  const described = [words.hint !== undefined ? `hint-${field.name}` : null, `err-${field.name}`]
    .filter(Boolean).join(' ');
  const common = { id, name: field.name, 'aria-describedby': described };
  if (Array.isArray(schema.enum)) {
    return h('select', common, schema.enum.map((value) => h('option', { value }, words.options?.[value] || value)));
  }
  if (schema.type === 'boolean') return h('input', { ...common, type: 'checkbox' });
  const text = { ...common, autocomplete: words.autocomplete || 'off', spellcheck: 'false' };
  const placeholder = words.placeholder ?? (schema.default !== undefined ? String(schema.default) : null);
  if (schema.type === 'integer') {
    return h('input', { ...common, type: 'number', min: '0', step: '1', inputmode: 'numeric', placeholder });
  }
  if (words.lines) return h('textarea', { ...text, rows: String(words.lines), placeholder });
  return h('input', { ...text, type: field.secret ? 'password' : 'text', placeholder });
}

/** One field: label, control (with a Show button when secret), hint and error slot. */
function fieldBlock(field, schema) {
  const words = WORDING[field.name] || {};
  const label = words.label || schema.description || field.name;
  const input = control(field, schema, words);
  // An empty hint is a slot the form words as the person chooses (the device, remember).
  const hint = words.hint !== undefined ? h('p', { id: `hint-${field.name}`, class: 'hint' }, words.hint) : null;
  const error = h('p', { id: `err-${field.name}`, class: 'field-error', dataset: { for: field.name }, role: 'alert' });
  if (schema.type === 'boolean') {
    return h('div', { class: 'check-field', dataset: { field: field.name } },
      h('div', { class: 'check' }, input, h('label', { for: input.id }, label)), hint, error);
  }
  const labelEl = h('label', { for: input.id, id: `label-${field.name}` }, label,
    words.optional ? [' ', h('span', { class: 'optional' }, '(optional)')] : null);
  const body = field.secret && input.tagName === 'INPUT'
    ? h('div', { class: 'secret-input' }, input, revealButton(input, label))
    : input;
  return h('div', { class: words.narrow ? 'field narrow' : 'field', dataset: { field: field.name } },
    labelEl, body, hint, error);
}

/**
 * A method's fields. A narrow one (a number) shares a row with the field
 * before it, or after it when that one is many lines (seed words).
 */
function methodFieldset(method, fields, properties) {
  const blocks = fields.map((field) => ({ field, block: fieldBlock(field, properties[field.name] || {}) }));
  const isNarrow = (b) => Boolean(WORDING[b.field.name]?.narrow);
  const pairable = (b) => b && !isNarrow(b) && !WORDING[b.field.name]?.lines && !WORDING[b.field.name]?.or;
  const children = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const b = blocks[i];
    if (WORDING[b.field.name]?.or && children.length) children.push(h('p', { class: 'or' }, h('span', {}, 'or')));
    if (isNarrow(b) && pairable(blocks[i - 1]) && children[children.length - 1] === blocks[i - 1].block) {
      children[children.length - 1] = h('div', { class: 'field-row' }, blocks[i - 1].block, b.block);
    } else if (isNarrow(b) && pairable(blocks[i + 1])) {
      children.push(h('div', { class: 'field-row' }, b.block, blocks[i + 1].block));
      i += 1;
    } else {
      children.push(b.block);
    }
  }
  return h('fieldset', { class: 'method-fields', dataset: { method }, hidden: true, disabled: true },
    h('legend', { class: 'visually-hidden' }, methodLabel(method)), children);
}

/**
 * Builds the form in `form` from the declaration and runs it. `identity()`
 * says who is logged in (login or switch_identity); `onResult(result)` is
 * told of each answer; `onPending(url)` of a bunker's approval link.
 */
export async function initLoginForm({ call, identity, onResult, onPending }) {
  const form = $('#login-form');
  const methodSelect = $('#method-select');
  const submit = $('#login-submit');
  const formError = $('#login-error');
  const formMessage = $('#login-message');
  const declaration = await call('login_form', {});
  const properties = declaration.schema?.properties || {};
  const fields = declaration.fields || [];
  const secretNames = fields.filter((f) => f.secret).map((f) => f.name);
  const numberNames = fields.filter((f) => properties[f.name]?.type === 'integer').map((f) => f.name);
  let busy = false;

  // The methods, as the schema lists them, each with its fieldset.
  const methods = properties.method?.enum || [];
  methodSelect.replaceChildren(...methods.map((m) => h('option', { value: m }, METHOD_OPTIONS[m] || methodLabel(m))));
  $('#method-fields').replaceChildren(...methods.map((m) => methodFieldset(m, fields.filter((f) => f.method === m), properties)));
  $('#common-fields').replaceChildren(...fields.filter((f) => !f.method).map((f) => fieldBlock(f, properties[f.name] || {})));
  const remember = form.querySelector('[name="remember"]');
  const password = form.querySelector('[name="password"]');
  const transport = form.querySelector('[name="transport"]');

  const activeFieldset = () => form.querySelector(`fieldset[data-method="${methodSelect.value}"]`);

  function showMethod() {
    const method = methodSelect.value;
    for (const fs of $$('fieldset[data-method]', form)) {
      const on = fs.dataset.method === method;
      fs.hidden = !on;
      fs.disabled = !on;
    }
    setText($('#method-hint'), METHOD_HINTS[method] || '');
    const hint = $('#hint-remember');
    if (hint) setText(hint, REMEMBER_HINTS[method] || '');
    showPassword();
    clearErrors();
  }

  // A password only encrypts a private key: asked for when one is kept.
  function showPassword() {
    if (!password) return;
    const needs = !!remember?.checked && (methodSelect.value === 'local' || methodSelect.value === 'seed');
    password.closest('[data-field]').hidden = !needs;
    password.disabled = !needs;
  }

  function showTransport() {
    if (!transport) return;
    const kind = DEVICE_BY_TRANSPORT[transport.value] || DEVICE_BY_TRANSPORT.serial;
    const device = form.querySelector('[name="device"]');
    if (device) {
      setText($('#label-device'), kind.label);
      device.placeholder = kind.placeholder;
      setText($('#hint-device'), kind.hint);
    }
    const service = form.querySelector('[name="service"]');
    if (service) {
      const qrexec = transport.value === 'qrexec';
      service.closest('[data-field]').hidden = !qrexec;
      service.disabled = !qrexec;
    }
  }

  function clearErrors() {
    for (const el of $$('.field-error', form)) setText(el, '');
    for (const el of $$('[aria-invalid]', form)) el.removeAttribute('aria-invalid');
    formError.hidden = true;
    setText(formError, '');
  }

  // Secrets leave the page's fields after every submit, and show hidden again.
  function clearSecrets() {
    for (const name of secretNames) {
      for (const el of $$(`[name="${name}"]`, form)) el.value = '';
    }
    for (const button of $$('.reveal', form)) setRevealed(button, button._input, false);
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

  /** The arguments of the chosen method's visible fields, and what is wrong with them. */
  function collect() {
    const params = { method: methodSelect.value };
    const errors = [];
    const controls = [...$$('input, textarea, select', activeFieldset()), ...$$('input, select', $('#common-fields'))];
    for (const el of controls) {
      if (!el.name || el.matches(':disabled')) continue;
      if (el.type === 'checkbox') {
        if (el.checked) params[el.name] = true;
        continue;
      }
      // A password is taken as typed; other text without the spaces around it.
      const raw = el.name === 'password' ? el.value : el.value.trim();
      if (raw === '') continue;
      if (numberNames.includes(el.name)) {
        if (!/^\d+$/.test(raw)) errors.push([el.name, 'must be a whole number, 0 or more']);
        else params[el.name] = Number(raw);
      } else {
        // Words (seed words) are sent one space apart, however they were pasted.
        params[el.name] = el.tagName === 'TEXTAREA' ? raw.split(/\s+/).join(' ') : raw;
      }
    }
    return { params, errors };
  }

  async function onSubmit(event) {
    event.preventDefault();
    if (busy) return;
    clearErrors();
    showMessage('');
    const { params, errors } = collect();
    clearSecrets();
    if (errors.length) {
      for (const [name, text] of errors) fieldError(name, text);
      visibleField(errors[0][0])?.focus();
      return;
    }
    const tool = identity().logged_in ? 'switch_identity' : 'login';
    busy = true;
    submit.disabled = true;
    const label = submit.textContent;
    submit.textContent = params.method === 'nip46' ? 'Waiting for the bunker…'
      : params.method === 'nsigner' ? 'Asking the signer…' : 'Logging in…';
    form.setAttribute('aria-busy', 'true');
    try {
      const result = await call(tool, params);
      if (result && result.pending) {
        onPending(result.pending.auth_url);
        showMessage('The bunker asks for approval: open the link above. This page updates when it is approved.');
      } else {
        const npub = result && result.npub;
        toast(npub ? `Logged in as ${shortNpub(npub)}` : 'Logged in', 'ok');
        if (result && result.remembered) toast('Identity remembered on this computer', 'ok');
        // "Remember" is a choice made each time.
        if (remember) remember.checked = false;
        showPassword();
        onResult(result);
      }
    } catch (error) {
      showCallError(error);
    } finally {
      busy = false;
      submit.disabled = false;
      submit.textContent = label;
      form.removeAttribute('aria-busy');
      clearSecrets();
      update();
    }
  }

  /** The heading and button say log in or switch, as the identity is. */
  function update() {
    if (busy) return;
    const switching = !!identity().logged_in;
    setText(submit, switching ? 'Switch identity' : 'Log in');
    setText($('#login-heading'), switching ? 'Switch to another identity' : 'Log in');
    $('#login-switch-note').hidden = !switching;
  }

  methodSelect.addEventListener('change', showMethod);
  remember?.addEventListener('change', showPassword);
  transport?.addEventListener('change', showTransport);
  form.addEventListener('submit', onSubmit);
  // Typing in a field clears its error.
  form.addEventListener('input', (event) => {
    const name = event.target.name;
    const slot = name && form.querySelector(`.field-error[data-for="${name}"]`);
    if (slot && slot.textContent) {
      setText(slot, '');
      event.target.removeAttribute('aria-invalid');
    }
  });
  showMethod();
  showTransport();
  update();
  submit.disabled = false;

  return {
    update,
    showMessage,
    focus() {
      form.scrollIntoView({ behavior: 'smooth', block: 'start' });
      methodSelect.focus({ preventScroll: true });
    },
  };
}
