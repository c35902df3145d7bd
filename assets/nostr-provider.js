// window.nostr (NIP-07) for web pages, run by Sovereign Browser at document
// start in every frame, in the page's own world. It only passes calls on:
// the browser's isolated script in the same frame adds the frame's origin,
// and the browser asks the person. Nothing here holds or sees a key.
(() => {
  'use strict';
  if (Object.prototype.hasOwnProperty.call(window, 'nostr')) return;
  // Taken now, before any page script can replace them.
  const CustomEventOf = CustomEvent;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseOf = Promise;
  const ErrorOf = Error;
  const freeze = Object.freeze;
  const define = Object.defineProperty;
  const REQUEST = '__sovereign_nostr_request';
  const REPLY = '__sovereign_nostr_reply';
  const waiting = Object.create(null);
  let next = 1;

  listen.call(window, REPLY, (event) => {
    let message;
    try { message = parse(event.detail); } catch (_) { return; }
    const settle = message && waiting[message.id];
    if (!settle) return;
    delete waiting[message.id];
    const reply = message.reply || {};
    if (reply.ok === true) settle.resolve(reply.result);
    else settle.reject(new ErrorOf(typeof reply.error === 'string' ? reply.error : 'window.nostr: the request failed'));
  });

  const call = (method, params) => new PromiseOf((resolve, reject) => {
    const id = next++;
    waiting[id] = { resolve, reject };
    let detail;
    try { detail = stringify({ id, method, params }); } catch (e) {
      delete waiting[id];
      reject(new ErrorOf('window.nostr: ' + method + ': the arguments cannot be sent: ' + e.message));
      return;
    }
    dispatch.call(window, new CustomEventOf(REQUEST, { detail }));
  });

  const nostr = freeze({
    getPublicKey: () => call('getPublicKey', {}),
    signEvent: (event) => call('signEvent', { event }),
    getRelays: () => call('getRelays', {}),
    nip04: freeze({
      encrypt: (pubkey, plaintext) => call('nip04.encrypt', { pubkey, plaintext }),
      decrypt: (pubkey, ciphertext) => call('nip04.decrypt', { pubkey, ciphertext }),
    }),
    nip44: freeze({
      encrypt: (pubkey, plaintext) => call('nip44.encrypt', { pubkey, plaintext }),
      decrypt: (pubkey, ciphertext) => call('nip44.decrypt', { pubkey, ciphertext }),
    }),
  });
  define(window, 'nostr', { value: nostr, writable: false, configurable: false, enumerable: true });
})();
