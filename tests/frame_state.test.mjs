// frame_switch/frame_main (same-origin and cross-origin frames), and
// state_save/state_load carrying a login into a fresh browser.
import { describe, it, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBrowser } from './support/browser.mjs';
import { loggedInSuite } from './support/session.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, callError, callJson, callText, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('frame_switch and saved state', { timeout: 180_000 }, () => {
  // The files folder agents' tools are confined to.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-state-'));
  const suite = loggedInSuite({ args: ['--files-dir', dir] });
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const snapshot = (args = {}) => callText(mcp, 'snapshot', args);

  for (const [page, inner, origin] of [
    ['frames.html', 'Inner button', 'same-origin'],
    ['frames-cross.html', 'Cross button', 'cross-origin'],
  ]) {
    it(`frame_switch makes every tool act in a ${origin} frame until frame_main`, { timeout: 30_000 }, logged(async () => {
      await call('open', { url: suite.fixtures.url(page) });
      await waitFor(async () => (await snapshot()).includes(inner), 'the frame to load');
      const chosen = await call('frame_switch', { selector: 'iframe' });
      assert.equal(chosen.same_origin, origin === 'same-origin');
      const inside = await snapshot();
      assert.doesNotMatch(inside, /Outer button/, 'the snapshot shows the frame only');
      assert.match(inside, new RegExp(`button "${inner}"`));
      assert.equal((await call('get_count', { selector: 'button' })).count, 1, 'selectors look in the frame');
      await call('click', { selector: 'button' });
      await waitFor(async () => /clicked true/.test(await snapshot({ interactive: false })), 'the click in the frame');
      assert.equal((await call('fill', { selector: 'input', value: 'typed inside' })).value, 'typed inside');
      const stored = await call('storage_local_set', { key: 'where', value: origin });
      assert.match(stored.origin, origin === 'same-origin' ? /127\.0\.0\.1/ : /localhost/, 'the frame\'s own origin');
      await call('frame_main');
      assert.match(await snapshot(), /Outer button/);
      await call('frame_switch', { selector: 'iframe' });
      await call('open', { url: suite.fixtures.url('form.html') });
      assert.match(await snapshot(), /Create account/, 'a new page leaves the frame');
    }));
  }

  for (const [page, inner, origin, says] of [
    ['frames.html', 'Inner button', 'same-origin', 'inner page'],
    ['frames-cross.html', 'Cross button', 'cross-origin', 'cross inner page'],
  ]) {
    it(`eval and wait_for_fn run in the page world of a ${origin} frame chosen with frame_switch`, { timeout: 30_000 }, logged(async () => {
      await call('open', { url: suite.fixtures.url(page) });
      await waitFor(async () => (await snapshot()).includes(inner), 'the frame to load');
      await call('frame_switch', { selector: 'iframe' });
      assert.deepEqual(await call('eval', { script: 'window.pageSays' }), { type: 'string', value: says },
        'the frame page\'s own globals');
      assert.deepEqual(await call('eval', { script: 'const n = document.querySelectorAll("button").length; n + 1' }),
        { type: 'number', value: 2 }, 'the last value of statements');
      assert.deepEqual(await call('eval', { script: 'await new Promise((r) => setTimeout(() => r(location.pathname), 10))' }),
        { type: 'string', value: origin === 'same-origin' ? '/frame-inner.html' : '/frame-cross-inner.html' }, 'a promise awaited');
      if (origin === 'cross-origin') {
        assert.deepEqual(await call('eval', { script: "await new Promise((r) => setTimeout(() => r('late'), 5500))" }),
          { type: 'string', value: 'late' }, 'a promise slower than an element operation may be');
      }
      assert.deepEqual(await call('eval', { script: 'return document.title' }),
        { type: 'string', value: origin === 'same-origin' ? 'Inner' : 'Cross inner' });
      const thrown = await callError(mcp, 'eval', { script: 'null.x' }, 'JS_ERROR');
      assert.match(thrown, /TypeError/);
      await callError(mcp, 'wait_for_fn', { script: 'this is not javascript(', timeout: 2000 }, 'INVALID_PARAMS');
      await call('click', { selector: 'button' });
      const waited = await call('wait_for_fn', { script: "return document.getElementById('out').textContent.includes('clicked') && window.pageSays", timeout: 5000 });
      assert.equal(waited.value, says);
      await call('frame_main');
      assert.deepEqual(await call('eval', { script: 'typeof window.pageSays' }), { type: 'string', value: 'undefined' },
        'frame_main: the top page again');
    }));
  }

  it('frame_switch refuses what is not a frame', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('frames.html') });
    await callError(mcp, 'frame_switch', { selector: 'h1' }, 'INVALID_PARAMS');
    await callError(mcp, 'frame_switch', { selector: '#none' }, 'ELEMENT_NOT_FOUND');
  }));

  it('state_save and state_load carry cookies and local storage into a fresh browser', { timeout: 90_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('set-cookie?name=sid&value=logged-in&httponly=1') });
    await call('storage_local_set', { key: 'token', value: 'tok-1' });
    const file = path.join(dir, 'site.json');
    const saved = await call('state_save', { path: file });
    assert.deepEqual([saved.path, saved.cookies, saved.origins], [file, 1, [suite.fixtures.origin]]);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the state file is owner-only');
    assert.equal((await call('state_save', { name: 'named' })).cookies, 1);
    await callError(mcp, 'state_save', { name: '../escape' }, 'INVALID_PARAMS');
    await callError(mcp, 'state_save', { path: 'relative.json' }, 'INVALID_PARAMS');
    await callError(mcp, 'state_load', { path: path.join(dir, 'missing.json') }, 'INVALID_PARAMS');

    // A second browser with a fresh profile, on the same site.
    const fresh = await startBrowser({ args: ['--files-dir', dir] });
    const other = await connectMcp(fresh);
    try {
      await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(other, 'open', { url: suite.fixtures.url('echo') });
      assert.equal(JSON.parse(await callText(other, 'get_text', { selector: '#echo' })).headers.cookie, undefined);
      const loaded = await callJson(other, 'state_load', { path: file });
      assert.deepEqual([loaded.cookies, loaded.origins], [1, [suite.fixtures.origin]]);
      assert.equal((await callJson(other, 'tab_list')).tabs.length, 1, 'the restoring tab is gone');
      await callJson(other, 'open', { url: suite.fixtures.url('echo') });
      assert.equal(JSON.parse(await callText(other, 'get_text', { selector: '#echo' })).headers.cookie, 'sid=logged-in',
        'the site sees the saved login');
      assert.equal((await callJson(other, 'storage_local_get_key', { key: 'token' })).value, 'tok-1');
    } finally {
      await other.close().catch(() => {});
      await fresh.stop();
    }
  }));
  it('state_save and state_load carry sessionStorage and IndexedDB, and list what they leave out', { timeout: 90_000 }, logged(async () => {
    const origin = suite.fixtures.origin;
    await call('open', { url: suite.fixtures.url('form.html') });
    await call('storage_session_set', { key: 'step', value: 'two' });
    // One record JSON can carry, one it cannot (a Date).
    await call('eval', { script: `new Promise((resolve, reject) => {
      const open = indexedDB.open('app', 3);
      open.onupgradeneeded = () => open.result.createObjectStore('items', { keyPath: 'id' }).createIndex('by_name', 'name');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('items', 'readwrite');
        tx.objectStore('items').put({ id: 1, name: 'saved', tags: ['a', 'b'] });
        tx.objectStore('items').put({ id: 2, when: new Date(0) });
        tx.oncomplete = () => { open.result.close(); resolve(true); };
        tx.onerror = () => reject(tx.error);
      };
    })` });
    // A site in the cookie jar with no tab open.
    await call('cookies_set', { name: 'away', value: '1', domain: 'elsewhere.test' });
    const file = path.join(dir, 'site-data.json');
    const saved = await call('state_save', { path: file });
    assert.deepEqual(saved.origins, [origin]);
    assert.deepEqual(saved.cookies_only, ['elsewhere.test'], 'the cookie-only site is reported: its storage was not read');
    assert.deepEqual(saved.not_saved, { [origin]: ['IndexedDB app/items: 1 records JSON cannot hold (Date, Blob, binary...)'] });

    const fresh = await startBrowser({ args: ['--files-dir', dir] });
    const other = await connectMcp(fresh);
    const page = async (script) => (await callJson(other, 'eval', { script })).value;
    try {
      await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
      // sessionStorage belongs to a tab: with none of its origin open, it is reported.
      const early = await callJson(other, 'state_load', { path: file });
      assert.deepEqual([early.session_storage, early.indexeddb], [[], [origin]]);
      assert.match(early.not_restored[origin].join(), /sessionStorage: no tab of this origin is open/);
      await callJson(other, 'open', { url: suite.fixtures.url('form.html') });
      const loaded = await callJson(other, 'state_load', { path: file });
      assert.deepEqual([loaded.session_storage, loaded.indexeddb, loaded.not_restored], [[origin], [origin], {}]);
      assert.equal((await callJson(other, 'storage_session_get_key', { key: 'step' })).value, 'two', 'sessionStorage is back in the open tab');
      const records = await page(`new Promise((resolve, reject) => {
        const open = indexedDB.open('app');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const store = db.transaction('items').objectStore('items');
          const all = store.getAll();
          all.onsuccess = () => { db.close(); resolve({ version: db.version, index: [...store.indexNames], records: all.result }); };
        };
      })`);
      assert.deepEqual(records, { version: 3, index: ['by_name'], records: [{ id: 1, name: 'saved', tags: ['a', 'b'] }] },
        'the IndexedDB record is back; the Date one, reported, is not');
    } finally {
      await other.close().catch(() => {});
      await fresh.stop();
    }
  }));

  // Regression: state_load brought the caller's tab to the front over the
  // tab the person worked in for an agent; a state file naming the
  // browser's own server had only WebKit's policy check in its way.
  it('state_load leaves the person their tab, and restores nothing into the browser\'s own server', { timeout: 90_000 }, logged(async () => {
    const { browser, fixtures } = suite.session;
    await call('open', { url: fixtures.url('form.html') });
    await call('storage_local_set', { key: 'colour', value: 'teal' });
    const file = path.join(dir, 'person-front.json');
    await call('state_save', { path: file });
    const own = `http://127.0.0.1:${browser.port}`;
    const state = JSON.parse(readFileSync(file, 'utf8'));
    state.local_storage[own] = { planted: 'by a state file' };
    writeFileSync(file, JSON.stringify(state));

    const panel = await connectPanel(browser);
    const asker = await connectMcp(browser, { name: 'asking-agent' });
    try {
      await callJson(asker, 'tab_new', { url: fixtures.url('links.html') });
      const asked = (await callJson(asker, 'tab_list')).tabs.find((t) => t.current);
      const answered = callJson(asker, 'ask_person', { message: 'Sign in, please', timeout: 60_000 });
      const front = async () => (await agentCall(panel, 'window_layout')).tabs.find((t) => t.front)?.id;
      await waitFor(async () => (await agentCall(panel, 'window_layout')).ask_bar?.includes('Sign in, please'), 'the request over its tab');
      assert.equal(await front(), asked.id);

      const loaded = await call('state_load', { path: file });
      assert.match(loaded.not_restored[own]?.join() ?? '', /own server/, JSON.stringify(loaded));
      assert.equal(await front(), asked.id, 'the person\'s tab is still in front');
      assert.match((await agentCall(panel, 'window_layout')).ask_bar, /Sign in, please/, 'and the request over it');

      // The person answers from the panel (the request is in its pushed state).
      let last = null;
      const ask = await waitFor(() => {
        while (panel.unmatched.length) {
          const pushed = panel.unmatched.shift();
          if (pushed.event === 'state') last = pushed.data;
        }
        return last?.asks?.find((a) => a.message === 'Sign in, please');
      }, 'the request in the panel\'s state');
      await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'done' });
      assert.equal((await answered).answer, 'done');
    } finally {
      await asker.close().catch(() => {});
      await panel.close();
    }
  }));
});
