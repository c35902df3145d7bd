// Sovereign Browser time-zone emulation (set_timezone), injected at document
// start into every frame, in the page's world: Date's local time, its
// strings and Intl's default time zone follow the zone the agent set, as
// they follow the machine's zone without it. WebKitGTK fixes a process's
// zone when it starts, so the browser bakes the zone into each new document.
// Workers keep the machine's zone.
(function () {
  'use strict';
  const zone = __SOVEREIGN_TIMEZONE__;
  const RealDate = Date;
  const RealFormat = Intl.DateTimeFormat;
  const realParse = RealDate.parse;
  const proto = RealDate.prototype;
  const MINUTE = 60000;
  const DAY = 86400000;

  let wallClock;
  try {
    wallClock = new RealFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric',
      day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  } catch (e) {
    return; // A zone this engine does not know: the machine's stays.
  }
  const zoneNames = new RealFormat('en-US', { timeZone: zone, timeZoneName: 'long' });

  const real = {};
  for (const name of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (typeof d.value === 'function') real[name] = d.value;
  }
  const timeOf = (date) => real.getTime.call(date); // TypeError for a non-Date, as natively
  const utcField = (t, getter) => real[getter].call(new RealDate(t));

  // The zone's offset (ms to add to UTC) at instant t; transitions fall on
  // whole minutes, so a minute's offset is kept (a bounded cache).
  const offsets = new Map();
  function offsetAt(t) {
    const minute = Math.floor(t / MINUTE);
    let offset = offsets.get(minute);
    if (offset !== undefined) return offset;
    const at = minute * MINUTE;
    const f = {};
    try {
      for (const { type, value } of wallClock.formatToParts(at)) f[type] = value;
    } catch (e) {
      return 0; // Outside what Intl formats.
    }
    const year = /^B/.test(f.era) ? 1 - Number(f.year) : Number(f.year);
    const wall = new RealDate(0);
    real.setUTCFullYear.call(wall, year, Number(f.month) - 1, Number(f.day));
    real.setUTCHours.call(wall, Number(f.hour), Number(f.minute), Number(f.second), 0);
    offset = timeOf(wall) - at;
    if (offsets.size >= 4096) offsets.clear();
    offsets.set(minute, offset);
    return offset;
  }

  // The instant of a wall time, as ECMA-262 chooses: the earlier of two in
  // an overlap, the offset before the transition in a gap.
  function instantOf(local) {
    if (!Number.isFinite(local)) return NaN;
    const before = offsetAt(local - DAY);
    const after = offsetAt(local + DAY);
    let best = NaN;
    for (const offset of before === after ? [before] : [before, after]) {
      const t = local - offset;
      if (offsetAt(t) === offset && !(t >= best)) best = t;
    }
    return Number.isNaN(best) ? local - before : best;
  }

  const wallOf = (t) => t + offsetAt(t);

  function define(target, name, value) {
    Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  }

  // Local fields.
  const GETTERS = {
    getFullYear: 'getUTCFullYear', getMonth: 'getUTCMonth', getDate: 'getUTCDate',
    getDay: 'getUTCDay', getHours: 'getUTCHours', getMinutes: 'getUTCMinutes',
    getSeconds: 'getUTCSeconds', getMilliseconds: 'getUTCMilliseconds',
  };
  for (const [name, utc] of Object.entries(GETTERS)) {
    define(proto, name, {
      [name]() {
        const t = timeOf(this);
        return Number.isNaN(t) ? NaN : utcField(wallOf(t), utc);
      },
    }[name]);
  }
  if (real.getYear) {
    define(proto, 'getYear', function getYear() {
      const t = timeOf(this);
      return Number.isNaN(t) ? NaN : utcField(wallOf(t), 'getUTCFullYear') - 1900;
    });
  }
  define(proto, 'getTimezoneOffset', function getTimezoneOffset() {
    const t = timeOf(this);
    return Number.isNaN(t) ? NaN : -offsetAt(t) / MINUTE;
  });

  const SETTERS = {
    setFullYear: 'setUTCFullYear', setMonth: 'setUTCMonth', setDate: 'setUTCDate',
    setHours: 'setUTCHours', setMinutes: 'setUTCMinutes', setSeconds: 'setUTCSeconds',
    setMilliseconds: 'setUTCMilliseconds',
  };
  for (const [name, utc] of Object.entries(SETTERS)) {
    define(proto, name, {
      [name](...args) {
        const t = timeOf(this);
        // Only setFullYear gives an invalid date a time (midnight of 1970).
        if (Number.isNaN(t) && name !== 'setFullYear') {
          args.forEach(Number);
          return NaN;
        }
        const wall = new RealDate(Number.isNaN(t) ? 0 : wallOf(t));
        real[utc].apply(wall, args);
        return real.setTime.call(this, instantOf(timeOf(wall)));
      },
    }[name]);
  }
  if (real.setYear) {
    define(proto, 'setYear', function setYear(year) {
      let y = Number(year);
      if (Number.isNaN(y)) return real.setTime.call(this, NaN);
      const whole = Math.trunc(y);
      if (whole >= 0 && whole <= 99) y = 1900 + whole;
      return proto.setFullYear.call(this, y);
    });
  }

  // Strings, as WebKit writes them.
  const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n) => String(n).padStart(2, '0');
  function yearText(y) {
    return y < 0 ? '-' + String(-y).padStart(6, '0') : String(y).padStart(4, '0');
  }
  function dateText(t) {
    const w = wallOf(t);
    return `${DAYS[utcField(w, 'getUTCDay')]} ${MONTHS[utcField(w, 'getUTCMonth')]} ` +
      `${two(utcField(w, 'getUTCDate'))} ${yearText(utcField(w, 'getUTCFullYear'))}`;
  }
  function timeText(t) {
    const w = wallOf(t);
    const minutes = Math.round(offsetAt(t) / MINUTE);
    const sign = minutes < 0 ? '-' : '+';
    const abs = Math.abs(minutes);
    let name = zone;
    try {
      name = zoneNames.formatToParts(t).find((p) => p.type === 'timeZoneName')?.value ?? zone;
    } catch (e) { /* outside what Intl formats */ }
    return `${two(utcField(w, 'getUTCHours'))}:${two(utcField(w, 'getUTCMinutes'))}:` +
      `${two(utcField(w, 'getUTCSeconds'))} GMT${sign}${two(Math.floor(abs / 60))}${two(abs % 60)} (${name})`;
  }
  const STRINGS = {
    toString: (t) => `${dateText(t)} ${timeText(t)}`,
    toDateString: dateText,
    toTimeString: timeText,
  };
  for (const [name, write] of Object.entries(STRINGS)) {
    define(proto, name, {
      [name]() {
        const t = timeOf(this);
        return Number.isNaN(t) ? 'Invalid Date' : write(t);
      },
    }[name]);
  }

  // Intl and toLocale*String: the zone unless the caller names one. The
  // caller's options stay the prototype, so getters and defaults hold.
  function withZone(options) {
    if (options === undefined) return { timeZone: zone };
    const given = Object(options);
    if (given.timeZone !== undefined) return options;
    return Object.assign(Object.create(given), { timeZone: zone });
  }
  for (const name of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
    define(proto, name, {
      [name](locales, options) {
        return real[name].call(this, locales, withZone(options));
      },
    }[name]);
  }
  const FormatWithZone = new Proxy(RealFormat, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, [args[0], withZone(args[1])], newTarget);
    },
    apply(target, self, args) {
      return Reflect.apply(target, self, [args[0], withZone(args[1])]);
    },
  });
  define(RealFormat.prototype, 'constructor', FormatWithZone);
  define(Intl, 'DateTimeFormat', FormatWithZone);

  // Wall times given to Date: its constructor's fields and strings without
  // a zone, which ECMA-262 reads as local time.
  const ISO_DATE_ONLY = /^\s*[+-]?\d{4,6}(?:-\d\d(?:-\d\d)?)?\s*$/;
  const TIME = /\d{1,2}:\d\d/;
  const ZONE_AFTER_TIME = /(?:\d[zZ]\b|\b(?:GMT|UTC|UT|Z|[ECMP][SD]T)\b|[+-]\d\d:?\d\d\b)/;
  function readsAsLocal(text) {
    if (ISO_DATE_ONLY.test(text)) return false;
    const at = text.search(TIME);
    return at < 0 || !ZONE_AFTER_TIME.test(text.slice(at));
  }
  function parse(value) {
    const text = String(value);
    const t = realParse(text);
    if (Number.isNaN(t) || !readsAsLocal(text)) return t;
    // The engine read the wall time in the machine's zone: read it in ours.
    return instantOf(t - real.getTimezoneOffset.call(new RealDate(t)) * MINUTE);
  }
  define(RealDate, 'parse', function parse_(value) { return parse(value); });
  Object.defineProperty(RealDate.parse, 'name', { value: 'parse' });

  const DateWithZone = new Proxy(RealDate, {
    construct(target, args, newTarget) {
      let made = args;
      if (args.length >= 2) made = [instantOf(RealDate.UTC(...args))];
      else if (args.length === 1 && typeof args[0] === 'string') made = [parse(args[0])];
      return Reflect.construct(target, made, newTarget);
    },
    apply() {
      return proto.toString.call(new RealDate());
    },
  });
  define(proto, 'constructor', DateWithZone);
  define(window, 'Date', DateWithZone);
})();
