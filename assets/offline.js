// Sovereign Browser offline emulation (set_offline), injected at document
// start into every frame, in the page's world: while the browser is offline,
// navigator.onLine is false. The browser bakes its state in for each new
// document and, when it changes, has the agent dispatch offline or online
// on every frame's window; this follows those events.
(function () {
  'use strict';
  let offline = __SOVEREIGN_OFFLINE__;
  const proto = Navigator.prototype;
  const real = Object.getOwnPropertyDescriptor(proto, 'onLine');
  if (!real || !real.get || !real.configurable) return;
  const realGet = real.get;
  const get = Object.getOwnPropertyDescriptor({
    get onLine() {
      return offline ? false : realGet.call(this);
    },
  }, 'onLine').get;
  Object.defineProperty(proto, 'onLine', { get, enumerable: real.enumerable, configurable: true });
  // Registered before any page script, capturing on the window: runs first.
  const follow = (event) => {
    if (!event.isTrusted) offline = event.type === 'offline';
    // The real network coming back is no news while the browser is offline.
    else if (offline && event.type === 'online') event.stopImmediatePropagation();
  };
  window.addEventListener('offline', follow, true);
  window.addEventListener('online', follow, true);
})();
