// set_user_agent and set_geolocation, checked from the page's side: what
// navigator says, what the server receives, what getCurrentPosition and
// watchPosition get, and that the permission goes when the position does.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError } from './support/mcp.mjs';
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
    assert.deepEqual(await call('set_locale', { locale: 'de_de' }), { locale: 'de-DE' });
    await call('open', { url: suite.fixtures.url('/echo') });
    const echoed = JSON.parse(await page("document.querySelector('#echo').textContent"));
    assert.match(echoed.headers['accept-language'], /^de-DE\b/i);
    assert.equal(await page('navigator.language'), 'de-DE');
    assert.equal(await page('navigator.languages[0]'), 'de-DE');
    assert.equal(await page("new Intl.NumberFormat().format(1234.5)"), '1.234,5', 'Intl follows it');
    assert.deepEqual(await call('set_locale', {}), { locale: null });
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
});
