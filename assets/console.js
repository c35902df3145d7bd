// Sovereign Browser console capture, injected at document start into every
// frame, in the page's own world (that is where console calls and uncaught
// errors happen). Entries go straight to the browser, which keeps a bounded
// log per tab for the console and errors tools.
(function () {
  'use strict';
  const handlers = window.webkit && window.webkit.messageHandlers;
  const handler = handlers && handlers.sovereignConsole;
  if (!handler) return;
  // Bound now: a page that later replaces postMessage cannot hide its errors.
  const post = handler.postMessage.bind(handler);
  const stringify = JSON.stringify;
  const TEXT_MAX = 2000;

  function show(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return value.stack ? `${value}\n${value.stack}` : String(value);
    try {
      const json = stringify(value);
      return json === undefined ? String(value) : json;
    } catch (_) {
      return String(value);
    }
  }

  function send(entry) {
    try {
      entry.url = location.href;
      post(stringify(entry));
    } catch (_) {
      // A message that cannot be sent must never break the page.
    }
  }

  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[level];
    if (typeof original !== 'function') continue;
    console[level] = function (...args) {
      send({ kind: 'console', level, text: args.map(show).join(' ').slice(0, TEXT_MAX) });
      return original.apply(this, args);
    };
  }

  addEventListener('error', (event) => {
    if (!(event instanceof ErrorEvent)) return; // a failed image or script load, not an exception
    send({
      kind: 'error',
      text: String(event.message).slice(0, TEXT_MAX),
      source: event.filename || null,
      line: event.lineno || null,
      column: event.colno || null,
      stack: event.error && event.error.stack ? String(event.error.stack).slice(0, TEXT_MAX) : null,
    });
  });

  addEventListener('unhandledrejection', (event) => {
    const reason = event.reason;
    send({
      kind: 'rejection',
      text: `Unhandled promise rejection: ${show(reason)}`.slice(0, TEXT_MAX),
      stack: reason && reason.stack ? String(reason.stack).slice(0, TEXT_MAX) : null,
    });
  });
})();
