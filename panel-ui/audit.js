// What was done in each identity's name (audit_log): pages' window.nostr
// uses, logins and logouts, vault secrets filled, with who asked and how it was decided. Read
// again whenever the browser says it changed; filter by identity, action
// and refusals; export as JSON lines; clear (asks first).

import {
  $, h, setText, syncRows, toast, describeError, formatClock, formatFull, shortNpub,
} from './dom.js';

const ACTIONS = {
  public_key: 'Public key read',
  sign: 'Signature',
  encrypt: 'Encryption',
  decrypt: 'Decryption',
  login: 'Login',
  logout: 'Logout',
  vault_fill: 'Vault secret filled',
};
const DECIDED = {
  person: 'by you',
  assistant: 'by an assistant',
  standing: 'kept decision',
  unanswered: 'no answer in time',
  refused: 'refused before asking',
  called: 'by the caller',
};

export function initAudit({ call }) {
  let uses = [];
  let seen = null; // the audit version last read
  const identitySelect = $('#audit-identity');
  const actionSelect = $('#audit-action');
  const refusedOnly = $('#audit-refused');

  function matches(use) {
    if (identitySelect.value && use.identity !== identitySelect.value) return false;
    if (actionSelect.value && use.action !== actionSelect.value) return false;
    if (refusedOnly.checked && use.allowed) return false;
    return true;
  }

  function detail(use) {
    const d = use.detail || {};
    switch (use.action) {
      case 'sign': return `kind ${d.kind}${d.id ? ` · id ${String(d.id).slice(0, 12)}…` : ''}`;
      case 'encrypt':
      case 'decrypt': return `${d.scheme || ''} with ${String(d.peer || '').slice(0, 12)}… · ${d.length} characters`;
      case 'login': return d.method ? `method ${d.method}` : '';
      case 'vault_fill': return `${d.entry}'s ${d.field}`;
      default: return '';
    }
  }

  function askedBy(use) {
    const parts = [];
    if (use.origin) parts.push(use.frame_of ? `${use.origin} (in ${use.frame_of})` : use.origin);
    if (use.agent) parts.push(`agent ${use.agent.client}${use.agent.session ? '' : ' (its script in the page)'}`);
    if (!parts.length) parts.push(use.decided === 'person' ? 'you' : '—');
    return parts.join(' · ');
  }

  function create() {
    return h('tr', {},
      h('td', { class: 'time' }), h('td', { class: 'identity' }), h('td', { class: 'context' }),
      h('td', { class: 'action' }), h('td', { class: 'asked-by' }), h('td', { class: 'decided' }),
      h('td', { class: 'outcome' }));
  }

  function update(tr, use) {
    tr.dataset.action = use.action;
    tr.dataset.allowed = String(!!use.allowed);
    tr.dataset.decided = use.decided;
    tr.dataset.agent = use.agent ? use.agent.client : '';
    tr.dataset.origin = use.origin || '';
    const time = tr.querySelector('.time');
    setText(time, formatClock(use.time));
    time.title = formatFull(use.time);
    const identity = tr.querySelector('.identity');
    setText(identity, use.identity ? shortNpub(use.identity) : 'none');
    identity.title = use.identity || '';
    setText(tr.querySelector('.context'), use.context);
    const what = detail(use);
    setText(tr.querySelector('.action'), `${ACTIONS[use.action] || use.action}${what ? ` · ${what}` : ''}`);
    setText(tr.querySelector('.asked-by'), askedBy(use));
    setText(tr.querySelector('.decided'), DECIDED[use.decided] || use.decided);
    setText(tr.querySelector('.outcome'), use.allowed ? 'done' : `refused${use.error ? `: ${use.error}` : ''}`);
    tr.classList.toggle('failed', !use.allowed);
  }

  function render() {
    const shown = uses.filter(matches).slice().reverse();
    syncRows($('#audit tbody'), shown, (u) => `${u.time} ${u.action} ${u.identity} ${u.origin} ${u.detail && u.detail.id}`, create, update);
    $('#audit').hidden = shown.length === 0;
    const empty = $('#audit-empty');
    empty.hidden = shown.length > 0;
    setText(empty, uses.length ? 'Nothing matches the filter.' : 'Nothing was done in an identity\'s name yet.');
    setText($('#audit-count'), uses.length === shown.length ? (uses.length ? String(uses.length) : '') : `${shown.length} of ${uses.length}`);
    const identities = [...new Set(uses.map((u) => u.identity).filter(Boolean))].sort();
    const have = Array.from(identitySelect.options).slice(1).map((o) => o.value);
    if (have.join() !== identities.join()) {
      const chosen = identitySelect.value;
      identitySelect.replaceChildren(h('option', { value: '' }, 'All'),
        ...identities.map((npub) => h('option', { value: npub }, shortNpub(npub))));
      identitySelect.value = identities.includes(chosen) ? chosen : '';
    }
  }

  async function load() {
    try {
      uses = (await call('audit_log', {})).uses || [];
      render();
    } catch (error) {
      if (error.code !== 'UNKNOWN_TOOL') toast(`Could not read the audit: ${describeError(error)}`, 'error');
    }
  }

  identitySelect.addEventListener('change', render);
  actionSelect.addEventListener('change', render);
  refusedOnly.addEventListener('change', render);

  $('#audit-export').addEventListener('click', async () => {
    try {
      const all = (await call('audit_log', { limit: 100000 })).uses || [];
      const lines = all.map((u) => JSON.stringify(u)).join('\n');
      const link = h('a', {
        href: URL.createObjectURL(new Blob([lines ? `${lines}\n` : ''], { type: 'application/x-ndjson' })),
        download: 'identity-audit.jsonl',
      });
      document.body.append(link);
      link.click();
      link.remove();
    } catch (error) {
      toast(`Could not export the audit: ${describeError(error)}`, 'error');
    }
  });

  $('#audit-clear').addEventListener('click', async () => {
    // eslint-disable-next-line no-alert
    if (!window.confirm('Forget everything done in your identities\' names, on disk too?')) return;
    try {
      await call('audit_clear', {});
      toast('The audit was cleared', 'ok');
    } catch (error) {
      toast(`Could not clear the audit: ${describeError(error)}`, 'error');
    }
  });

  return {
    /** A state push: read the audit again when it changed. */
    render(state) {
      if (state.audit_version === seen) return;
      seen = state.audit_version;
      load();
    },
    /** After a reconnection, read it afresh. */
    reconnected() {
      seen = null;
    },
  };
}
