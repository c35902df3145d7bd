// Sovereign Browser console details. The web process extension
// (src-rust/web-extension/console.c) evaluates this in each frame's page
// world before any page script (that is where console calls and uncaught
// errors happen) and calls the function it returns with `detail`, a native
// function bound to the frame that only this closure holds. The engine
// itself reports each message to the browser, keeping only a call's first
// argument and no stack; this reports the formatted arguments and the
// stacks, just before the engine's message, which the extension joins them
// to. A report here never makes an entry on its own.
//
// Everything it calls is taken now, before page scripts can replace it.
(function () {
  'use strict';
  return function install(detail) {
    const W = window;
    const apply = Reflect.apply;
    const stringify = W.JSON.stringify;
    const toText = W.String;
    const ErrorEvent = W.ErrorEvent;
    const isError = W.Error.isError || ((v) => v instanceof W.Error);
    const slice = W.String.prototype.slice;
    const push = W.Array.prototype.push;
    const join = W.Array.prototype.join;
    const trusted = Object.getOwnPropertyDescriptor(W.Event.prototype, 'isTrusted');
    const isTrusted = trusted && trusted.get ? (e) => apply(trusted.get, e, []) : (e) => e.isTrusted;
    const addListener = W.EventTarget.prototype.addEventListener;
    const TEXT_MAX = 2000;
    const cut = (text) => apply(slice, text, [0, TEXT_MAX]);

    function show(value) {
      if (typeof value === 'string') return value;
      try {
        if (isError(value)) return value.stack ? `${value}\n${value.stack}` : toText(value);
        const json = stringify(value);
        return json === undefined ? toText(value) : json;
      } catch (_) {
        try { return toText(value); } catch (_) { return ''; }
      }
    }

    function send(kind, level, key, text, column, stack) {
      try {
        detail(kind, level, key, text, column, stack);
      } catch (_) {
        // A detail that cannot be sent must never break the page.
      }
    }

    function stackOf(value) {
      try {
        return value && value.stack ? cut(toText(value.stack)) : null;
      } catch (_) {
        return null;
      }
    }

    const console = W.console;
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
      const original = console[level];
      if (typeof original !== 'function') continue;
      console[level] = function (...args) {
        // The key is the first argument as the engine records it.
        let key = '';
        try { key = args.length ? toText(args[0]) : ''; } catch (_) { key = ''; }
        const shown = [];
        for (let i = 0; i < args.length; i++) apply(push, shown, [show(args[i])]);
        let text = '';
        try { text = cut(apply(join, shown, [' '])); } catch (_) { text = ''; }
        send('console', level, key, text, null, null);
        return apply(original, this, args);
      };
    }

    apply(addListener, W, ['error', (event) => {
      // A failed image or script load is not an exception, nor is an event a page made.
      if (!(event instanceof ErrorEvent) || !isTrusted(event)) return;
      let key = '';
      try { key = toText(event.message); } catch (_) { key = ''; }
      send('error', null, key, null, event.colno || null, stackOf(event.error));
    }]);

    apply(addListener, W, ['unhandledrejection', (event) => {
      if (!isTrusted(event)) return;
      let reason = '';
      try { reason = toText(event.reason); } catch (_) { reason = ''; }
      send('rejection', null, `Unhandled Promise Rejection: ${reason}`, null, null, stackOf(event.reason));
    }]);
  };
})()
