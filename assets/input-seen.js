// Sovereign Browser input receipts, injected at document start into every
// frame, in the agent's isolated world. The browser answers an agent's
// input tool only once the page has received the events it sent; this says
// which trusted events each document received. Pages see neither these
// listeners nor the handler they post to, so they cannot forge a receipt.
(function () {
  'use strict';
  if (globalThis.__sovereignInputSeen) return;
  globalThis.__sovereignInputSeen = true;
  const handlers = window.webkit && window.webkit.messageHandlers;
  const handler = handlers && handlers.sovereignInput;
  if (!handler) return;
  const post = handler.postMessage.bind(handler);
  const report = (event) => {
    if (event.isTrusted) post(event.type);
  };
  // Pointer events, not mouse events: a page that cancels pointerdown gets
  // no mousedown, and a disabled control gets no mouse events at all, but
  // every press, release and move of the mouse is a pointer event.
  // Registered first, capturing on the window: they run before any page
  // listener could stop the event.
  for (const type of ['pointermove', 'pointerdown', 'pointerup', 'wheel', 'keydown', 'keyup']) {
    window.addEventListener(type, report, { capture: true, passive: true });
  }
})();
