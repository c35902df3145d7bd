// Sovereign Browser device emulation (set_device), injected at document
// start into every frame, in the page's world: scripts read the device's
// pixel ratio, screen and touch support (devicePixelRatio, screen,
// navigator.maxTouchPoints, ontouchstart, matchMedia for pointer, hover and
// resolution). WebKitGTK draws at the display's own scale and takes no
// touch screen it does not have, so CSS media queries keep the desktop's.
(function () {
  'use strict';
  const device = __SOVEREIGN_DEVICE__;

  function getter(target, name, get) {
    const old = Object.getOwnPropertyDescriptor(target, name);
    if (old && !old.configurable) return;
    Object.defineProperty(target, name, {
      get: Object.getOwnPropertyDescriptor({ get [name]() { return get.call(this); } }, name).get,
      enumerable: old ? old.enumerable : true,
      configurable: true,
    });
  }

  const onWindow = Object.getOwnPropertyDescriptor(window, 'devicePixelRatio') ? window : Window.prototype;
  getter(onWindow, 'devicePixelRatio', () => device.scale);
  for (const [name, value] of [['width', device.width], ['height', device.height],
    ['availWidth', device.width], ['availHeight', device.height]]) {
    getter(Screen.prototype, name, () => value);
  }
  getter(Navigator.prototype, 'maxTouchPoints', () => (device.touch ? 5 : 0));

  // ontouchstart and its kin, where touch screens have them: handlers held
  // per object, as event handler attributes are.
  if (device.touch) {
    const handlers = new WeakMap();
    for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel']) {
      const name = 'on' + type;
      for (const target of [Window.prototype, Document.prototype, HTMLElement.prototype]) {
        if (name in target) continue;
        Object.defineProperty(target, name, {
          get() { return handlers.get(this)?.[type]?.handler ?? null; },
          set(handler) {
            const mine = handlers.get(this) ?? {};
            handlers.set(this, mine);
            if (mine[type]) this.removeEventListener(type, mine[type].listener);
            delete mine[type];
            if (typeof handler !== 'function') return;
            const listener = (event) => {
              if (handler.call(this, event) === false) event.preventDefault();
            };
            mine[type] = { handler, listener };
            this.addEventListener(type, listener);
          },
          enumerable: true,
          configurable: true,
        });
      }
    }
  }

  // matchMedia: pointer, hover and resolution features are answered for the
  // device; the rest of a query is the engine's.
  const TRUE = '(min-width: 0px)';
  const FALSE = '(min-width: 100000px)';
  const FEATURE = /\(\s*((?:-webkit-)?(?:min-|max-)?(?:any-pointer|pointer|any-hover|hover|resolution|device-pixel-ratio))\s*(?::\s*([^)]*?))?\s*\)/gi;
  function dppx(value) {
    const m = /^([\d.]+)\s*(dppx|x|dpi|dpcm)?$/i.exec(value);
    if (!m) return NaN;
    const n = Number(m[1]);
    switch ((m[2] || 'dppx').toLowerCase()) {
      case 'dpi': return n / 96;
      case 'dpcm': return (n * 2.54) / 96;
      default: return n;
    }
  }
  function answer(feature, value) {
    let name = feature.toLowerCase().replace('-webkit-', '');
    let range = '';
    const prefix = /^(min|max)-/.exec(name);
    if (prefix) {
      range = prefix[1];
      name = name.slice(4);
    }
    const v = (value ?? '').trim().toLowerCase();
    if (name === 'pointer' || name === 'any-pointer') {
      const mine = device.touch ? 'coarse' : 'fine';
      return value === undefined ? true : v === mine;
    }
    if (name === 'hover' || name === 'any-hover') {
      const mine = device.touch ? 'none' : 'hover';
      return value === undefined ? mine !== 'none' : v === mine;
    }
    const wanted = dppx(v);
    if (value === undefined) return true;
    if (Number.isNaN(wanted)) return null;
    if (range === 'min') return device.scale >= wanted;
    if (range === 'max') return device.scale <= wanted;
    return device.scale === wanted;
  }
  const realMatchMedia = window.matchMedia;
  if (typeof realMatchMedia === 'function') {
    Object.defineProperty(window, 'matchMedia', {
      value: function matchMedia(query) {
        const text = String(query);
        const made = text.replace(FEATURE, (whole, feature, value) => {
          const yes = answer(feature, value);
          return yes === null ? whole : yes ? TRUE : FALSE;
        });
        const list = realMatchMedia.call(this, made);
        if (made !== text) Object.defineProperty(list, 'media', { value: text, configurable: true });
        return list;
      },
      writable: true,
      configurable: true,
    });
  }
})();
