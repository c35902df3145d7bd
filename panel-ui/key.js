// The person's panel key in this page. It arrives in the address the
// browser printed (/?key=... or /#key=...), moves into session storage,
// which belongs to this origin alone (scheme, host and port), and leaves
// the address bar and the history entry. It is never a cookie: a cookie
// for 127.0.0.1 would go to every other server on this machine's loopback.

const STORE = 'sovereign-panel-key';

function fromAddress() {
  for (const part of [location.hash.slice(1), location.search.slice(1)]) {
    const value = new URLSearchParams(part).get('key');
    if (value) return value.trim();
  }
  return null;
}

/** Takes the key out of the address (if there) and keeps it for this tab. */
export function takeKeyFromAddress() {
  const given = fromAddress();
  if (given === null) return;
  rememberKey(given);
  history.replaceState(null, '', location.pathname);
}

export function rememberKey(value) {
  try {
    sessionStorage.setItem(STORE, value);
  } catch {
    // Storage refused (a private mode): the key lives only in this page.
    inMemory = value;
  }
}

let inMemory = null;

export function panelKey() {
  try {
    return sessionStorage.getItem(STORE) ?? inMemory;
  } catch {
    return inMemory;
  }
}

/**
 * The WebSocket subprotocols that carry the key: the panel's own, which
 * the server answers with, and the key spelled in hex (a subprotocol is
 * a token; the server never echoes this one).
 */
export function panelProtocols() {
  const key = panelKey();
  if (!key) return ['sovereign-panel'];
  const hex = Array.from(new TextEncoder().encode(key), (b) => b.toString(16).padStart(2, '0')).join('');
  return ['sovereign-panel', `key.${hex}`];
}
