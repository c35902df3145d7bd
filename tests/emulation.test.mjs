// set_user_agent, set_locale, set_geolocation, set_timezone and set_device,
// checked from the page's side: what navigator, Date, Intl, screen and
// matchMedia say, what the server receives, what getCurrentPosition and
// watchPosition get, and that the permission goes when the position does.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { TEST_NSEC, callError, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

const PHONE = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) SovereignTest/1.0 Mobile';

/** The page's getCurrentPosition: coordinates, or the error's code. */
const CURRENT = `new Promise((done) => navigator.geolocation.getCurrentPosition(
  (p) => done({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
  (e) => done({ code: e.code }), { timeout: 10000 }))`;

describe('emulation', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  const page = async (script) => (await call('eval', { script })).value;

  it('set_user_agent: navigator.userAgent, the header the server gets, and new tabs; none restores the browser\'s own', logged(async () => {
    await call('open', { url: suite.fixtures.url('/form.html') });
    const own = await page('navigator.userAgent');
    assert.match(own, /AppleWebKit/);
    const set = await call('set_user_agent', { user_agent: PHONE });
    assert.equal(set.user_agent, PHONE);
    assert.equal(await page('navigator.userAgent'), PHONE);
    await call('open', { url: suite.fixtures.url('/echo') });
    const echoed = JSON.parse(await page("document.querySelector('#echo').textContent"));
    assert.equal(echoed.headers['user-agent'], PHONE);
    const { tab } = await call('tab_new', { url: suite.fixtures.url('/form.html') });
    assert.equal(await page('navigator.userAgent'), PHONE, `tab ${tab} has it too`);
    await call('tab_close', { tab });
    const back = await call('set_user_agent', {});
    assert.equal(back.user_agent, own);
    assert.equal(await page('navigator.userAgent'), own);
    await callError(suite.mcp, 'set_user_agent', { user_agent: 'two\nlines' }, 'INVALID_PARAMS');
  }));

  it('set_locale: the Accept-Language the server gets and navigator.language from the next load; none restores the system\'s', logged(async () => {
    await call('open', { url: suite.fixtures.url('/form.html') });
    const own = await page('navigator.language');
    assert.deepEqual(await call('set_locale', { locale: 'de_de' }), { locale: 'de-DE', shared: true });
    await call('open', { url: suite.fixtures.url('/echo') });
    const echoed = JSON.parse(await page("document.querySelector('#echo').textContent"));
    assert.match(echoed.headers['accept-language'], /^de-DE\b/i);
    assert.equal(await page('navigator.language'), 'de-DE');
    assert.equal(await page('navigator.languages[0]'), 'de-DE');
    assert.equal(await page("new Intl.NumberFormat().format(1234.5)"), '1.234,5', 'Intl follows it');
    // WebKit keeps one language list for the whole browser: another context's pages read it too, as the result said.
    const other = await connectMcp(suite.session.browser, { name: 'another-context' });
    try {
      await callJson(other, 'context_new', { name: 'elsewhere' });
      await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(other, 'open', { url: suite.fixtures.url('/form.html') });
      assert.equal((await callJson(other, 'eval', { script: 'navigator.language' })).value, 'de-DE');
      await callJson(other, 'context_close', { context: 'elsewhere' });
    } finally {
      await other.close();
    }
    assert.deepEqual(await call('set_locale', {}), { locale: null, shared: true });
    await call('open', { url: suite.fixtures.url('/echo') });
    const after = JSON.parse(await page("document.querySelector('#echo').textContent"));
    assert.doesNotMatch(after.headers['accept-language'] ?? '', /^de/i, 'the system\'s languages again');
    assert.notEqual(await page('navigator.language'), 'de-DE');
    assert.ok(own, 'the page read a language before');
    await callError(suite.mcp, 'set_locale', { locale: 'not a tag!' }, 'INVALID_PARAMS');
  }));

  it('set_geolocation: pages get the position and its changes while it is set, and are refused without it', logged(async () => {
    await call('open', { url: suite.fixtures.url('/form.html') });
    assert.deepEqual(await page(CURRENT), { code: 1 }, 'refused (PERMISSION_DENIED) before any is set');
    const set = await call('set_geolocation', { latitude: 52.52, longitude: 13.405, accuracy: 25 });
    assert.deepEqual(set, { geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 25 }, permission: 'granted' });
    // A document keeps the answer it got (WebKit's rule): a new one asks again.
    await call('reload');
    assert.deepEqual(await page(CURRENT), { latitude: 52.52, longitude: 13.405, accuracy: 25 });

    // A page watching hears a new position.
    await page('window.seen = []; navigator.geolocation.watchPosition((p) => seen.push(p.coords.latitude)); true');
    await waitFor(async () => (await page('seen.length')) > 0, 'the watch to get the position');
    await call('set_geolocation', { latitude: -33.86, longitude: 151.21 });
    await waitFor(async () => (await page('seen.at(-1)')) === -33.86, 'the watch to hear the new position');

    assert.deepEqual(await call('set_geolocation', {}), { geolocation: null, permission: 'denied' });
    const after = await page(CURRENT.replace('timeout: 10000', 'timeout: 1000'));
    assert.ok(after.code >= 2 && after.latitude === undefined, `a document that had it gets no position: ${JSON.stringify(after)}`);
    await call('reload');
    assert.deepEqual(await page(CURRENT), { code: 1 }, 'refused again once cleared');
    await callError(suite.mcp, 'set_geolocation', { latitude: 91, longitude: 0 }, 'INVALID_PARAMS');
    await callError(suite.mcp, 'set_geolocation', { latitude: 10 }, 'INVALID_PARAMS');
  }));

  it('set_timezone: Date and Intl of the page and its frames in the zone from the next load, DST gaps and overlaps as ECMA-262 says; none restores the machine\'s', logged(async () => {
    await call('open', { url: suite.fixtures.url('/frames.html') });
    const own = await page('Intl.DateTimeFormat().resolvedOptions().timeZone');
    const set = await call('set_timezone', { timezone: 'America/New_York' });
    assert.equal(set.timezone, 'America/New_York');
    assert.match(set.utc_offset, /^-0[45]:00$/);
    assert.match(set.local_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    assert.equal(await page('Intl.DateTimeFormat().resolvedOptions().timeZone'), own, 'a loaded document keeps its zone');

    await call('reload');
    const seen = await page(`(() => {
      const summer = new Date(Date.UTC(2026, 6, 1, 16));
      const set = new Date(summer); set.setHours(0);
      return {
        zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        winterOffset: new Date(Date.UTC(2026, 0, 15, 12)).getTimezoneOffset(),
        summerOffset: summer.getTimezoneOffset(),
        hours: summer.getHours(),
        text: String(summer),
        locale: summer.toLocaleString('en-US'),
        fields: new Date(2026, 6, 1, 12).toISOString(),
        localIso: new Date('2026-07-01T12:00').toISOString(),
        dateOnly: new Date('2026-07-01').toISOString(),
        written: new Date('July 1, 2026 12:00').toISOString(),
        slashes: new Date('2026/07/01').toISOString(),
        explicit: new Date('2026-07-01T12:00:00Z').toISOString(),
        gap: new Date(2026, 2, 8, 2, 30).toISOString(),
        overlap: new Date(2026, 10, 1, 1, 30).toISOString(),
        setHours: set.toISOString(),
        utc: new Date(Date.UTC(2026, 6, 1)).toISOString(),
        formatted: new Intl.DateTimeFormat('en-US', { hour: 'numeric', hourCycle: 'h23' }).format(summer),
        tokyo: new Intl.DateTimeFormat('en-US', { hour: 'numeric', hourCycle: 'h23', timeZone: 'Asia/Tokyo' }).format(summer),
        isDate: new Date() instanceof Date && Object.prototype.toString.call(new Date()) === '[object Date]',
      };
    })()`);
    assert.deepEqual(seen, {
      zone: 'America/New_York',
      winterOffset: 300,
      summerOffset: 240,
      hours: 12,
      text: 'Wed Jul 01 2026 12:00:00 GMT-0400 (Eastern Daylight Time)',
      locale: '7/1/2026, 12:00:00 PM',
      fields: '2026-07-01T16:00:00.000Z',
      localIso: '2026-07-01T16:00:00.000Z',
      dateOnly: '2026-07-01T00:00:00.000Z',
      written: '2026-07-01T16:00:00.000Z',
      slashes: '2026-07-01T04:00:00.000Z',
      explicit: '2026-07-01T12:00:00.000Z',
      gap: '2026-03-08T07:30:00.000Z',
      overlap: '2026-11-01T05:30:00.000Z',
      setHours: '2026-07-01T04:00:00.000Z',
      utc: '2026-07-01T00:00:00.000Z',
      formatted: '12',
      tokyo: '01',
      isDate: true,
    });
    const frame = (script) => page(`document.querySelector('iframe').contentWindow.eval(${JSON.stringify(script)})`);
    assert.equal(await frame('Intl.DateTimeFormat().resolvedOptions().timeZone'), 'America/New_York', 'the frame too');
    assert.equal(await frame('new Date(Date.UTC(2026, 6, 1, 16)).getHours()'), 12);

    const tokyo = await call('set_timezone', { timezone: 'Asia/Tokyo' });
    assert.equal(tokyo.utc_offset, '+09:00');
    await call('open', { url: suite.fixtures.url('/form.html') });
    assert.equal(await page('new Date(Date.UTC(2026, 6, 1, 16)).getHours()'), 1, '16:00 UTC is 01:00 the next day in Tokyo');
    assert.equal(await page('new Date(Date.UTC(2026, 6, 1, 16)).getDate()'), 2);

    assert.deepEqual(await call('set_timezone', {}), { timezone: null });
    await call('reload');
    assert.equal(await page('Intl.DateTimeFormat().resolvedOptions().timeZone'), own, 'the machine\'s zone again');
    await callError(suite.mcp, 'set_timezone', { timezone: 'Mars/Olympus_Mons' }, 'INVALID_PARAMS');
    await callError(suite.mcp, 'set_timezone', { timezone: '../../etc/passwd' }, 'INVALID_PARAMS');
  }));

  it('set_device: a phone\'s viewport and User-Agent at once, its screen, pixel ratio and touch for scripts from the next load; Desktop gives them back', logged(async () => {
    await call('open', { url: suite.fixtures.url('/form.html') });
    const ownAgent = await page('navigator.userAgent');
    const phone = await call('set_device', { name: 'pixel 8' });
    assert.equal(phone.device, 'Pixel 8');
    assert.deepEqual(phone.viewport, { width: 412, height: 915 });
    assert.match(phone.user_agent, /Android 14; Pixel 8.*Mobile/);
    assert.equal(phone.device_pixel_ratio, 2.625);
    assert.equal(phone.touch, true);
    assert.deepEqual(await page('[innerWidth, innerHeight, navigator.userAgent]'), [412, 915, phone.user_agent]);

    await call('reload');
    const seen = await page(`(() => {
      document.body.ontouchstart = (event) => { window.touched = event.type; };
      document.body.dispatchEvent(new TouchEvent('touchstart', { bubbles: true }));
      return {
        ratio: devicePixelRatio,
        screen: [screen.width, screen.height],
        touchPoints: navigator.maxTouchPoints,
        ontouchstart: 'ontouchstart' in window,
        touched: window.touched,
        coarse: matchMedia('(pointer: coarse)').matches,
        fine: matchMedia('(pointer: fine)').matches,
        hover: matchMedia('(hover: hover)').matches,
        sharp: matchMedia('(min-resolution: 2dppx)').matches,
        webkitRatio: matchMedia('(-webkit-min-device-pixel-ratio: 3)').matches,
        mixed: matchMedia('(max-width: 500px) and (any-pointer: coarse)').matches,
        media: matchMedia('(pointer: coarse)').media,
      };
    })()`);
    assert.deepEqual(seen, {
      ratio: 2.625,
      screen: [412, 915],
      touchPoints: 5,
      ontouchstart: true,
      touched: 'touchstart',
      coarse: true,
      fine: false,
      hover: false,
      sharp: true,
      webkitRatio: false,
      mixed: true,
      media: '(pointer: coarse)',
    });

    const desk = await call('set_device', { name: 'Desktop' });
    assert.deepEqual(desk.viewport, { width: 1280, height: 720 });
    assert.equal(desk.user_agent, ownAgent, 'the browser\'s own User-Agent again');
    await call('reload');
    assert.deepEqual(await page("[devicePixelRatio, navigator.maxTouchPoints, 'ontouchstart' in window, matchMedia('(pointer: fine)').matches, innerWidth]"),
      [1, 0, false, true, 1280]);
    await callError(suite.mcp, 'set_device', { name: 'Nokia 3310' }, 'INVALID_PARAMS');
  }));
});
