// mouse_*, clipboard_*, set_viewport, set_offline, set_headers, set_credentials
// and set_media, each checked by what the page or the fixture server saw.
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('mouse, clipboard and settings', { timeout: 180_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  const page = (script) => call('eval', { script }).then((r) => r.value);
  const text = async (selector) => (await callText(mcp, 'get_text', { selector })).trim();
  const open = (path) => call('open', { url: suite.fixtures.url(path) });

  it('mouse_move, mouse_down, mouse_up and mouse_wheel are trusted events where the mouse is', { timeout: 30_000 }, logged(async () => {
    await open('interact.html');
    // A mouse-driven slider: press on the knob, move, release.
    const knob = await call('get_box', { selector: '#knob' });
    const track = await call('get_box', { selector: '#track' });
    await call('mouse_move', { x: knob.x + 10, y: knob.y + 10 });
    await call('mouse_down');
    await call('mouse_move', { x: track.x + 200, y: knob.y + 10 });
    await call('mouse_up');
    assert.equal(await text('#knob-log'), '190', 'the knob followed the held button');
    await open('media.html');
    await call('mouse_move', { x: 200, y: 200 });
    await call('mouse_down', { button: 'middle' });
    await call('mouse_up', { button: 'middle' });
    await call('mouse_down', { button: 'right' });
    assert.deepEqual(await page('window.buttons'),
      ['mousedown:1:true', 'mouseup:1:true', 'mousedown:2:true', 'contextmenu:2:true']);
    await call('mouse_up', { button: 'right' });
    const wheel = await call('mouse_wheel', { dy: 300 });
    assert.deepEqual(await page('window.wheels'), ['300:true']);
    assert.ok(wheel.scrollY >= 300, `the page scrolled (${wheel.scrollY})`);
    await callError(mcp, 'mouse_move', { x: -5, y: 10 }, 'INVALID_PARAMS');
    await callError(mcp, 'mouse_down', { button: 'fourth' }, 'INVALID_PARAMS');
  }));

  // Regression: the input tools answered as soon as GTK had queued their
  // events, before the page got them (issue: right button's mousedown seen late).
  it('input tools answer once a busy page has handled every event they sent', { timeout: 30_000 }, logged(async () => {
    await open('slow-input.html');
    const pad = await call('get_box', { selector: '#pad' });
    await call('mouse_move', { x: pad.x + 20, y: pad.y + 20 });
    await call('mouse_down');
    await call('mouse_up');
    assert.deepEqual(await page('window.seen'), ['mousedown', 'mouseup', 'click']);
    await call('mouse_down', { button: 'right' });
    assert.deepEqual((await page('window.seen')).slice(3), ['mousedown', 'contextmenu']);
    await call('mouse_up', { button: 'right' });
    await call('focus', { selector: '#field' });
    await page('window.seen = []; 1');
    await call('keydown', { key: 'Shift' });
    await call('press', { key: 'a' });
    await call('keyup', { key: 'Shift' });
    assert.deepEqual(await page('window.seen'),
      ['keydown:Shift', 'keydown:A', 'keyup:A', 'keyup:Shift']);
    await call('keyboard_type', { value: 'bc' });
    assert.equal(await page("document.getElementById('field').value"), 'Abc');
  }));

  it('clipboard_write then clipboard_paste reaches the page; clipboard_copy then clipboard_read', { timeout: 30_000 }, logged(async () => {
    await open('media.html');
    await call('clipboard_write', { text: 'pasted by the agent' });
    assert.deepEqual(await call('clipboard_read'), { text: 'pasted by the agent' });
    await call('click', { selector: '#field' });
    await call('clipboard_paste');
    assert.equal((await call('get_value', { selector: '#field' })).value, 'pasted by the agent');
    assert.equal(await text('#pasted'), 'paste true: pasted by the agent');
    await page("getSelection().selectAllChildren(document.getElementById('copy-source')); 1");
    await call('clipboard_copy');
    assert.deepEqual(await call('clipboard_read'), { text: 'Copy this sentence' });
  }));

  it('set_viewport, set_media', { timeout: 30_000 }, logged(async () => {
    await open('media.html');
    assert.deepEqual(await call('set_viewport', { width: 800, height: 600 }), { width: 800, height: 600 });
    assert.equal(await text('#size'), '800x600', 'the page saw the resize');
    assert.deepEqual(await call('set_viewport', { width: 1024, height: 700 }), { width: 1024, height: 700 });
    await callError(mcp, 'set_viewport', { width: 50, height: 600 }, 'INVALID_PARAMS');
    await call('set_media', { color_scheme: 'dark' });
    await waitFor(async () => (await text('#scheme')) === 'dark', 'matchMedia to report dark');
    const dark = await call('get_styles', { selector: 'body', properties: ['background-color'] });
    assert.equal(dark.styles['background-color'], 'rgb(0, 0, 0)', 'the dark CSS applies');
    await call('set_media', { color_scheme: 'light' });
    await waitFor(async () => (await text('#scheme')) === 'light', 'matchMedia to report light');
    await callError(mcp, 'set_media', { color_scheme: 'sepia' }, 'INVALID_PARAMS');
  }));

  it('set_offline: pages, their frames and pages loaded later see navigator.onLine and the events', { timeout: 60_000 }, logged(async () => {
    await open('online.html');
    const framesSeen = () => page('JSON.stringify(frames_seen)').then(JSON.parse);
    await waitFor(async () => Object.keys(await framesSeen()).length === 2, 'both frames to report');
    assert.deepEqual(await page('seen'), ['start true']);
    await call('set_offline', { offline: true });
    const offline = { same: 'start true, offline false', cross: 'start true, offline false' };
    await waitFor(async () => JSON.stringify(await framesSeen()) === JSON.stringify(offline),
      'the offline event in the same-origin and the cross-origin frame');
    assert.deepEqual(await page('seen'), ['start true', 'offline false'], 'the page heard it, and navigator.onLine said so');
    // A frame made while offline reads it at its start.
    await page(`const later = document.createElement('iframe');
      later.srcdoc = '<script>parent.postMessage({ who: "later", seen: ["start " + navigator.onLine] }, "*")<' + '/script>';
      document.body.append(later)`);
    await waitFor(async () => (await framesSeen()).later === 'start false', 'the new frame to report');

    await call('set_offline', { offline: false });
    const online = { same: 'start true, offline false, online true', cross: 'start true, offline false, online true' };
    await waitFor(async () => {
      const seen = await framesSeen();
      return seen.same === online.same && seen.cross === online.cross;
    }, 'the online event in both frames');
    assert.deepEqual(await page('seen'), ['start true', 'offline false', 'online true']);

    // A page loaded while offline (no request needed) starts offline.
    await call('set_offline', { offline: true });
    try {
      await call('open', { url: 'data:text/html,<title>Later</title>' });
      assert.equal(await page('navigator.onLine'), false, 'a page loaded later');
      await call('tab_new', { url: 'data:text/html,<title>New</title>' });
      assert.equal(await page('navigator.onLine'), false, 'a tab opened later');
      await call('tab_close');
    } finally {
      await call('set_offline', { offline: false });
    }
    assert.equal(await page('navigator.onLine'), true);
  }));

  it('set_headers reach the server; set_offline fails requests and comes back; set_credentials answers HTTP auth', { timeout: 60_000 }, logged(async () => {
    const echoed = async () => JSON.parse(await text('#echo')).headers;
    await call('set_headers', { headers: { 'X-Agent': 'sovereign', 'X-Run': '7' } });
    await open('echo');
    const sent = await echoed();
    assert.deepEqual([sent['x-agent'], sent['x-run']], ['sovereign', '7']);
    await call('reload');
    assert.equal((await echoed())['x-agent'], 'sovereign', 'a reload carries them too');
    await call('set_headers', { headers_json: '{}' });
    await open('echo');
    assert.equal((await echoed())['x-agent'], undefined);
    await callError(mcp, 'set_headers', { headers: { 'Bad Name': 'x' } }, 'INVALID_PARAMS');

    await call('set_offline', { offline: true });
    assert.match(await callError(mcp, 'open', { url: suite.fixtures.url('form.html') }, 'NAVIGATION_FAILED'), /connect/i);
    await call('set_offline', { offline: false });
    assert.equal((await open('form.html')).title, 'Sign up');

    assert.match(await callError(mcp, 'open', { url: suite.fixtures.url('auth') }, 'NAVIGATION_FAILED'), /set_credentials/);
    await call('set_credentials', { user: 'agent', pass: 'wrong' });
    await open('auth');
    assert.equal(await text('#auth'), 'refused', 'wrong credentials show the refusal');
    await call('set_credentials', { user: 'agent', pass: 's3cret' });
    await open('auth');
    assert.equal(await text('#auth'), 'welcome agent');
    // Regression: credentials went to whichever site asked next. They are
    // for the site they were set on; another origin (the same server under
    // another name) is not sent them.
    const elsewhere = suite.fixtures.url('auth').replace('127.0.0.1', 'localhost');
    assert.match(await callError(mcp, 'open', { url: elsewhere }, 'NAVIGATION_FAILED'), /set_credentials/);
    const given = await call('set_credentials', { user: 'agent', pass: 's3cret', origin: elsewhere });
    assert.equal(given.origin, new URL(elsewhere).origin);
    await call('open', { url: elsewhere });
    assert.equal(await text('#auth'), 'welcome agent');
    await callError(mcp, 'set_credentials', { user: 'agent', pass: 'x', origin: 'about:blank' }, 'INVALID_PARAMS');
    await call('set_credentials', {});
  }));
});
