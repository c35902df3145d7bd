// The browser's half of window.nostr, in its isolated script world in every
// frame: a page can neither see nor change it. It reads the frame's origin
// itself and posts each call to a message handler that exists only in this
// world; the browser's reply (after the person decided) resolves the post.
// The origin is the document's own (self.origin): a sandboxed document
// loaded from a site's address has an opaque origin ("null"), while
// location.origin would name the site it was loaded from.
(() => {
  'use strict';
  const handlers = window.webkit && window.webkit.messageHandlers;
  const handler = handlers && handlers.sovereignNostr;
  if (!handler) return;
  const REQUEST = '__sovereign_nostr_request';
  const REPLY = '__sovereign_nostr_reply';
  const MAX = 1 << 20;

  const answer = (id, reply) => {
    window.dispatchEvent(new CustomEvent(REPLY, { detail: JSON.stringify({ id, reply }) }));
  };

  window.addEventListener(REQUEST, (event) => {
    const detail = event.detail;
    if (typeof detail !== 'string') return;
    let message;
    try { message = JSON.parse(detail); } catch (_) { return; }
    if (!message || typeof message.id !== 'number') return;
    const id = message.id;
    if (detail.length > MAX) {
      answer(id, { ok: false, error: 'window.nostr: the request is larger than 1 MiB' });
      return;
    }
    const ancestors = location.ancestorOrigins ? Array.from(location.ancestorOrigins) : [];
    const call = JSON.stringify({
      origin: typeof self.origin === 'string' ? self.origin : 'null',
      top_origin: ancestors.length ? ancestors[ancestors.length - 1] : null,
      method: String(message.method),
      params: message.params && typeof message.params === 'object' ? message.params : {},
    });
    handler.postMessage(call).then(
      (text) => {
        let reply;
        try { reply = JSON.parse(text); } catch (_) { reply = { ok: false, error: 'window.nostr: the browser sent no answer' }; }
        answer(id, reply);
      },
      (error) => answer(id, { ok: false, error: 'window.nostr: ' + ((error && error.message) || String(error)) }),
    );
  });
})();
