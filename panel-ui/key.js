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
  // A request the address opens the panel at (#ask=ID) stays in it.
  const ask = askInAddress();
  history.replaceState(null, '', location.pathname + (ask === null ? '' : `#ask=${ask}`));
}

/** The agent's request the address opens the panel at (#ask=ID), if any. */
export function askInAddress() {
  const value = new URLSearchParams(location.hash.slice(1)).get('ask');
  return value !== null && /^[0-9]{1,15}$/.test(value) ? Number(value) : null;
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

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** HMAC-SHA-256 of message under key, in hex (WebCrypto: loopback is a secure context). */
async function hmacHex(key, message) {
  const encoder = new TextEncoder();
  const secret = await crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(new Uint8Array(await crypto.subtle.sign('HMAC', secret, encoder.encode(message))));
}

/**
 * The server's hello, checked: the server proves it holds `key` before the
 * page sends anything made from it, and the page answers with a proof over
 * the server's nonce, never the key (src-rust/base/proof.rs). Resolves
 * { proven: false } when the server's proof does not match (a wrong key, or
 * not the browser), else { proven: true, instance, protocols }; rejects when
 * nothing answered.
 */
export async function hello(key) {
  if (!globalThis.crypto || !crypto.subtle) {
    throw Object.assign(new Error('this page is not in a secure context'), { insecure: true });
  }
  const mine = hex(crypto.getRandomValues(new Uint8Array(16)));
  const response = await fetch(`/api/hello?for=panel&nonce=${mine}`, { cache: 'no-store' });
  if (!response.ok) return { proven: false };
  const said = await response.json();
  const expected = await hmacHex(key, `sovereign server|${mine}|${said.nonce}|${said.instance}`);
  if (typeof said.proof !== 'string' || said.proof !== expected) return { proven: false };
  const proof = await hmacHex(key, `sovereign client|${said.nonce}`);
  return { proven: true, instance: said.instance, protocols: ['sovereign-panel', `nonce.${said.nonce}`, `proof.${proof}`] };
}
