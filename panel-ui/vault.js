// The vault of sites' credentials: the person makes it under a password,
// opens and locks it, and adds, changes and removes entries. Agents only
// list names and origins (secrets_list); no value ever comes back here
// either: the panel shows which fields an entry fills, never what they hold.

import { $, h, setText, toast, describeError } from './dom.js';

const FIELD_LABEL = { user: 'user name', password: 'password', totp: 'one-time code' };

export function initVault({ call }) {
  const section = $('#vault-section');
  const stateText = $('#vault-state');
  const error = $('#vault-error');
  const createForm = $('#vault-create');
  const unlockForm = $('#vault-unlock');
  const openPart = $('#vault-open');
  const list = $('#vault-entries');
  const entryForm = $('#vault-entry');
  const lockButton = $('#vault-lock');
  const waitingPart = $('#vault-waiting-part');
  const waitingList = $('#vault-waiting');

  function render(status) {
    const made = Boolean(status.exists);
    const open = Boolean(status.open);
    section.dataset.state = !made ? 'none' : open ? 'open' : 'locked';
    createForm.hidden = made;
    unlockForm.hidden = !made || open;
    openPart.hidden = !open;
    const entries = status.entries || [];
    setText(stateText, !made ? 'Not made yet'
      : !open ? 'Locked: agents can use nothing in it'
        : `Open: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`);
    list.replaceChildren(...entries.map(row));
  }

  function row(entry) {
    const fields = entry.fields.map((f) => h('span', { class: 'pill' }, FIELD_LABEL[f] || f));
    const remove = h('button', { type: 'button', class: 'danger', 'data-action': 'remove' }, 'Remove');
    const edit = h('button', { type: 'button', 'data-action': 'edit' }, 'Change');
    const li = h('li', { 'data-name': entry.name },
      h('div', { class: 'row-main' },
        h('strong', { class: 'name' }, entry.name),
        h('span', { class: 'origins' }, entry.origins.join(', ')),
        h('span', { class: 'fields' }, ...fields),
        entry.ask_each_time ? h('span', { class: 'asks pill' }, 'asks you each time') : null),
      h('div', { class: 'row-actions' }, edit, remove));
    edit.addEventListener('click', () => {
      // The values are never sent back: the person types again what changes.
      entryForm.elements.name.value = entry.name;
      entryForm.elements.origins.value = entry.origins.join('\n');
      for (const name of ['user', 'password', 'totp']) entryForm.elements[name].value = '';
      entryForm.elements.ask_each_time.checked = Boolean(entry.ask_each_time);
      entryForm.elements.user.focus();
    });
    remove.addEventListener('click', () => act('vault_remove', { name: entry.name }, `Removed ${entry.name}`));
    return li;
  }

  async function act(tool, params, done) {
    setText(error, '');
    section.setAttribute('aria-busy', 'true');
    try {
      render(await call(tool, params));
      if (done) toast(done, 'ok');
      return true;
    } catch (err) {
      setText(error, describeError(err));
      return false;
    } finally {
      section.removeAttribute('aria-busy');
    }
  }

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { password, confirm } = createForm.elements;
    if (password.value !== confirm.value) {
      setText(error, 'The two passwords differ.');
      return;
    }
    if (await act('vault_create', { password: password.value }, 'The vault is made and open')) createForm.reset();
  });

  unlockForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { password } = unlockForm.elements;
    const opened = await act('vault_unlock', { password: password.value }, 'The vault is open');
    password.value = '';
    if (!opened) password.focus();
  });

  lockButton.addEventListener('click', () => act('vault_lock', {}, 'The vault is locked'));

  entryForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = entryForm.elements;
    const params = {
      name: form.name.value.trim(),
      origins: form.origins.value.split(/[\s,]+/).filter(Boolean),
    };
    for (const name of ['user', 'password', 'totp']) {
      if (form[name].value) params[name] = form[name].value;
    }
    params.ask_each_time = form.ask_each_time.checked;
    if (await act('vault_put', params, `Saved ${params.name}`)) entryForm.reset();
  });

  // Uses of entries that ask each time, waiting for the person's yes.
  function renderWaiting(waiting) {
    waitingPart.hidden = waiting.length === 0;
    waitingList.replaceChildren(...waiting.map((use) => {
      const asker = use.asker ? `An agent calling itself “${use.asker}”` : 'An agent that gave no name';
      const what = `${asker} asks to fill ${use.entry}'s ${FIELD_LABEL[use.field] || use.field} on ${use.origin} (tab ${use.tab})`;
      const allow = h('button', { type: 'button', class: 'primary', 'data-answer': 'allow' }, 'Allow once');
      const deny = h('button', { type: 'button', class: 'danger', 'data-answer': 'deny' }, 'Deny');
      allow.addEventListener('click', () => answer(use.id, true));
      deny.addEventListener('click', () => answer(use.id, false));
      return h('li', { 'data-id': String(use.id) },
        h('div', { class: 'row-main' }, h('span', { class: 'what' }, what)),
        h('div', { class: 'row-actions' }, allow, deny));
    }));
  }

  async function answer(id, allow) {
    setText(error, '');
    try {
      await call('vault_answer', { id, allow });
      toast(allow ? 'Allowed once' : 'Denied', 'ok');
    } catch (err) {
      setText(error, describeError(err));
    }
  }

  async function refresh() {
    try {
      render(await call('vault_status', {}));
    } catch (err) {
      setText(error, describeError(err));
    }
  }

  return { refresh, renderWaiting };
}
