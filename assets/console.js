// Sovereign Browser console details, injected at document start into every
// frame, in the page's own world (that is where console calls and uncaught
// errors happen). The engine itself reports each message to the browser,
// keeping only a call's first argument and no stack; this script reports
// the formatted arguments and the stacks, which the browser joins to the
// engine's entry. A report here never makes an entry on its own.
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

  function send(detail) {
    try {
      post(stringify(detail));
    } catch (_) {
      // A detail that cannot be sent must never break the page.
    }
  }

  function stackOf(value) {
    try {
      return value && value.stack ? String(value.stack).slice(0, TEXT_MAX) : null;
    } catch (_) {
      return null;
    }
  }

  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[level];
    if (typeof original !== 'function') continue;
    console[level] = function (...args) {
      // The key is the first argument as the engine records it.
      let key = '';
      try { key = args.length ? String(args[0]) : ''; } catch (_) { key = ''; }
      send({ kind: 'console', level, key, text: args.map(show).join(' ').slice(0, TEXT_MAX) });
      return original.apply(this, args);
    };
  }

  addEventListener('error', (event) => {
    if (!(event instanceof ErrorEvent)) return; // a failed image or script load, not an exception
    send({
      kind: 'error',
      key: String(event.message),
      column: event.colno || null,
      stack: stackOf(event.error),
    });
  });

  addEventListener('unhandledrejection', (event) => {
    let reason = '';
    try { reason = String(event.reason); } catch (_) { reason = ''; }
    send({ kind: 'rejection', key: `Unhandled Promise Rejection: ${reason}`, stack: stackOf(event.reason) });
  });
})();
