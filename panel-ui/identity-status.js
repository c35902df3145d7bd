// The identity as the person sees it: the status card (who is logged in,
// how it signs, a bunker's approval link) and the header badge.

import { $, h, setText, copyWithFeedback, shortNpub, methodLabel } from './dom.js';

/** Only http(s) links are made clickable (an auth_url comes from a remote signer). */
function safeHttpUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

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

/** Shows `identity` (with the approval link `pendingUrl` of a login waiting for one). */
export function renderStatus(identity, pendingUrl) {
  const box = $('#identity-status');
  const badge = $('#identity-badge');
  const badgeText = $('#identity-badge-text');
  const badgeCopy = $('#identity-badge-copy');
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
}
