// Web pages using the identity through window.nostr (NIP-07): the requests
// waiting for an answer, the decisions kept per origin, and whether
// assistants may answer requests.

import {
  $, h, setText, syncRows, toggleEmpty, toast, describeError, formatFull, shortNpub,
} from './dom.js';

const CHOICES = [
  { label: 'Allow once', allow: true, remember: false, cls: 'button small primary' },
  { label: 'Always allow', allow: true, remember: true, cls: 'button small' },
  { label: 'Deny', allow: false, remember: false, cls: 'button small danger-outline' },
  { label: 'Always deny', allow: false, remember: true, cls: 'button small danger-outline' },
];

const CAPABILITY_LABELS = {
  public_key: 'Read your public key',
  encrypt: 'Encrypt messages',
  decrypt: 'Decrypt messages',
};

function capabilityLabel(key) {
  if (CAPABILITY_LABELS[key]) return CAPABILITY_LABELS[key];
  const kind = /^sign:(\d+)$/.exec(key || '');
  return kind ? `Sign events of kind ${kind[1]}` : key;
}

export function initNostr({ call }) {
  const baseTitle = document.title;
  let expiries = new Map(); // prompt id -> local ms when it expires

  async function answer(li, choice, buttons) {
    for (const b of buttons) b.disabled = true;
    try {
      await call('nostr_prompt_answer', { id: li.dataset.key, allow: choice.allow, remember: choice.remember });
      toast(`${choice.allow ? 'Allowed' : 'Denied'}${choice.remember ? ' from now on' : ' this time'}`, choice.allow ? 'ok' : 'info');
    } catch (error) {
      toast(`Could not answer: ${describeError(error)}`, 'error');
      for (const b of buttons) b.disabled = false;
    }
  }

  function createPrompt() {
    const li = h('li', { class: 'prompt' });
    const buttons = CHOICES.map((choice) => h('button', {
      class: choice.cls, type: 'button', dataset: { answer: choice.label },
    }, choice.label));
    buttons.forEach((b, i) => b.addEventListener('click', () => answer(li, CHOICES[i], buttons)));
    li.append(
      h('p', { class: 'prompt-origin' }, h('strong', { class: 'origin' }), h('span', { class: 'frame muted' })),
      h('p', { class: 'prompt-context muted', hidden: true }),
      h('p', { class: 'prompt-asks' }),
      h('p', { class: 'prompt-agent warning', hidden: true },
        'An agent ran its own script in this tab or routed its requests: this request may be the agent\'s, not the site\'s. '
        + 'It can be answered just this time, and only by you.'),
      h('div', { class: 'prompt-event', hidden: true },
        h('p', { class: 'prompt-kind muted' }),
        h('pre', { class: 'prompt-content' }),
        h('pre', { class: 'prompt-tags' })),
      h('p', { class: 'prompt-peer muted', hidden: true }),
      h('div', { class: 'button-row' }, ...buttons, h('span', { class: 'prompt-left muted' })));
    return li;
  }

  function updatePrompt(li, prompt) {
    setText(li.querySelector('.origin'), prompt.origin);
    setText(li.querySelector('.frame'), prompt.in_frame_of ? ` in a frame of ${prompt.in_frame_of}` : '');
    // An agent's context: its identity signs, and "always" holds there only.
    const context = li.querySelector('.prompt-context');
    context.hidden = !prompt.other_context;
    li.dataset.context = prompt.context || 'default';
    setText(context, prompt.other_context
      ? `In context ${prompt.context} (an agent's, with its own identity): a decision kept holds in that context only.`
      : '');
    setText(li.querySelector('.prompt-asks'), `asks to ${prompt.asks_to} (${prompt.method})`);
    // A request that may be an agent's: no "always" for it.
    const agents = prompt.agent_scripted === true;
    li.querySelector('.prompt-agent').hidden = !agents;
    li.querySelectorAll('button[data-answer^="Always"]').forEach((b) => { b.hidden = agents; });
    const event = li.querySelector('.prompt-event');
    event.hidden = prompt.kind === undefined;
    if (prompt.kind !== undefined) {
      const tags = Array.isArray(prompt.tags) ? prompt.tags.length : 0;
      const when = typeof prompt.created_at === 'number'
        ? `dated ${new Date(prompt.created_at * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`
        : 'dated now';
      setText(li.querySelector('.prompt-kind'), `Kind ${prompt.kind} · ${when} · ${tags} tag${tags === 1 ? '' : 's'}`
        + (prompt.content_cut_bytes ? ` · ${prompt.content_cut_bytes} more bytes not shown` : ''));
      setText(li.querySelector('.prompt-content'), prompt.content || '(no content)');
      // Every tag, one per line, as JSON: nothing signed goes unseen.
      const tagLines = (prompt.tags || []).map((tag) => JSON.stringify(tag)).join('\n');
      const tagsBox = li.querySelector('.prompt-tags');
      tagsBox.hidden = !tagLines;
      setText(tagsBox, tagLines);
    }
    const peer = li.querySelector('.prompt-peer');
    peer.hidden = !prompt.peer;
    if (prompt.peer) {
      const size = prompt.plaintext_chars !== undefined
        ? `${prompt.plaintext_chars} characters to encrypt`
        : `${prompt.ciphertext_chars} characters to decrypt`;
      setText(peer, `with ${prompt.peer} · ${size}`);
    }
    if (!expiries.has(prompt.id)) expiries.set(prompt.id, Date.now() + (prompt.expires_in_ms || 0));
    tick(li);
  }

  function tick(li) {
    const at = expiries.get(li.dataset.key);
    if (at === undefined) return;
    const left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
    setText(li.querySelector('.prompt-left'), `Rejected in ${left} s without an answer`);
  }

  setInterval(() => {
    for (const li of document.querySelectorAll('#nostr-prompts li')) tick(li);
  }, 1000);

  async function revoke(tr, button) {
    button.disabled = true;
    try {
      await call('nostr_permission_revoke', {
        origin: tr.dataset.origin, capability: tr.dataset.capability, context: tr.dataset.context, pubkey: tr.dataset.pubkey,
      });
      toast('Decision revoked: the site will be asked again', 'ok');
    } catch (error) {
      toast(`Could not revoke: ${describeError(error)}`, 'error');
      button.disabled = false;
    }
  }

  function createDecision() {
    const tr = h('tr');
    const button = h('button', { class: 'button small danger-outline', type: 'button', dataset: { action: 'revoke' } }, 'Revoke');
    button.addEventListener('click', () => revoke(tr, button));
    tr.append(h('td', { class: 'context' }), h('td', { class: 'identity' }), h('td', { class: 'origin' }), h('td', { class: 'capability' }), h('td', { class: 'decision' }),
      h('td', { class: 'decided' }), h('td', { class: 'actions' }, button));
    return tr;
  }

  function updateDecision(tr, d) {
    tr.dataset.origin = d.origin;
    tr.dataset.capability = d.capability;
    tr.dataset.context = d.context || 'default';
    tr.dataset.pubkey = d.pubkey || '';
    // A decision is its identity's: another identity is asked again.
    setText(tr.querySelector('.identity'), d.npub ? shortNpub(d.npub) : 'none (kept by an earlier release; asks again)');
    tr.querySelector('.identity').title = d.npub || '';
    setText(tr.querySelector('.context'), d.context && d.context !== 'default' ? d.context : 'yours');
    setText(tr.querySelector('.origin'), d.origin);
    setText(tr.querySelector('.capability'), capabilityLabel(d.capability));
    const decision = tr.querySelector('.decision');
    setText(decision, d.allow ? 'Allowed' : 'Denied');
    decision.dataset.allow = String(d.allow);
    setText(tr.querySelector('.decided'), formatFull(d.decided_at * 1000));
  }

  const assistant = $('#nostr-assistant-answers');
  assistant.addEventListener('change', async () => {
    const allowed = assistant.checked;
    assistant.disabled = true;
    try {
      await call('nostr_assistant_answers', { allowed });
      toast(allowed ? 'Assistants may now answer requests, just this time each'
        : 'Assistants can no longer answer requests', 'ok');
    } catch (error) {
      assistant.checked = !allowed;
      toast(`Could not change it: ${describeError(error)}`, 'error');
    } finally {
      assistant.disabled = false;
    }
  });

  function render(state) {
    const nostr = state.nostr || {};
    const prompts = Array.isArray(nostr.prompts) ? nostr.prompts : [];
    const ids = new Set(prompts.map((p) => p.id));
    expiries = new Map([...expiries].filter(([id]) => ids.has(id)));
    syncRows($('#nostr-prompts'), prompts, (p) => p.id, createPrompt, updatePrompt);
    $('#nostr-prompts-empty').hidden = prompts.length > 0;
    $('#nostr-section').classList.toggle('attention', prompts.length > 0);
    setText($('#nostr-count'), prompts.length ? `${prompts.length} waiting` : '');
    document.title = prompts.length ? `(${prompts.length}) ${baseTitle}` : baseTitle;

    const decisions = Array.isArray(nostr.permissions) ? nostr.permissions : [];
    syncRows($('#nostr-permissions tbody'), decisions, (d) => `${d.context} ${d.pubkey} ${d.origin} ${d.capability}`, createDecision, updateDecision);
    toggleEmpty('nostr-permissions', decisions.length === 0);
    if (!assistant.disabled) assistant.checked = Boolean(nostr.assistant_answers);
  }

  return { render };
}
