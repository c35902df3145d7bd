// Inputs wait until their element can take them, on pages that fight automation
// (bench/fight-pages/): overlays, transitions, late enabling, elements that jump away.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, callError, callJson, callText, connectMcp } from './support/mcp.mjs';

const PAGES = fileURLToPath(new URL('../bench/fight-pages/', import.meta.url));

describe('actionability', { timeout: 180_000 }, () => {
  let server;
  let browser;
  let mcp;
  before(async () => {
    server = await startFixtureServer({ root: PAGES });
    browser = await startBrowser();
    mcp = await connectMcp(browser);
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
  }, { timeout: 90_000 });
  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
    await server?.close();
  });
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const open = (page) => call('open', { url: server.url(`/${page}`) });
  const hits = async () => (await call('eval', { script: 'window.hits' })).value;
  const logged = (fn) => withBrowserLog(() => browser, fn);

  it('a click waits for an overlay to leave, and the overlay never gets it', logged(async () => {
    await open('overlay-leaves.html');
    assert.equal((await call('click', { selector: '#go' })).clicked, true);
    assert.deepEqual(await hits(), ['target']);
  }));

  it('an overlay that stays is named by role, name and selector, and gets no click', logged(async () => {
    await open('overlay-stays.html');
    const message = await callError(mcp, 'click', { selector: '#go', timeout: 600 }, 'NOT_INTERACTABLE');
    assert.match(message, /covered by dialog "Cookie consent" \(#consent\)/);
    assert.match(message, /waited \d+ ms/);
    assert.deepEqual(await hits(), [], 'the covering element was clicked');
    // Dismissed as the error says, the target takes the click.
    await call('click', { selector: '#accept' });
    await call('click', { selector: '#go' });
    assert.deepEqual(await hits(), ['accept', 'target']);
  }));

  it('timeout 0 looks once and fails at once', logged(async () => {
    await open('overlay-stays.html');
    const started = Date.now();
    await callError(mcp, 'click', { selector: '#go', timeout: 0 }, 'NOT_INTERACTABLE');
    assert.ok(Date.now() - started < 2000, `timeout 0 took ${Date.now() - started} ms`);
  }));

  it('a click waits for a button enabled after load, and fill for a field made editable', logged(async () => {
    await open('enabled-later.html');
    await call('click', { selector: '#go' });
    assert.deepEqual(await hits(), ['target']);
    await call('reload');
    assert.equal((await call('fill', { selector: '#name', value: 'Ada' })).value, 'Ada');
  }));

  it('a disabled button that stays disabled fails naming why, after the wait', logged(async () => {
    await open('enabled-later.html');
    await call('eval', { script: "document.getElementById('go').disabled = true; setTimeout(() => document.getElementById('go').disabled = true, 400); 1" });
    assert.match(await callError(mcp, 'click', { selector: '#go', timeout: 0 }, 'NOT_INTERACTABLE'), /disabled/);
  }));

  it('a click waits for a button sliding in with a transition, until it stops', logged(async () => {
    await open('slide-in.html');
    await call('eval', { script: "document.getElementById('go').addEventListener('click', (e) => { window.moving = e.target.getAnimations().length; }); 1" });
    await call('click', { selector: '#go' });
    assert.deepEqual(await hits(), ['target']);
    assert.equal((await call('eval', { script: 'window.moving' })).value, 0, 'clicked while the transition still ran');
  }));

  it('a button that jumps away as the pointer comes is clicked where it went', logged(async () => {
    await open('moves-on-hover.html');
    await call('click', { selector: '#go' });
    assert.deepEqual(await hits(), ['target'], 'the click landed where the button had been');
  }));

  it('targets in a scrolled box and in a frame below the first screen are reached', logged(async () => {
    await open('scrolled.html');
    await call('click', { selector: '#in-box' });
    const snapshot = await callText(mcp, 'snapshot');
    const ref = /(\w+) button "In the frame"/.exec(snapshot)?.[1];
    assert.ok(ref, snapshot);
    await call('click', { ref });
    assert.deepEqual(await hits(), ['box target', 'frame target']);
  }));

  it('a ref still reaches its element after the page rendered it anew, and not after it was deleted', logged(async () => {
    await open('rerender.html');
    const snapshot = await callText(mcp, 'snapshot');
    const refs = Object.fromEntries(['Alpha', 'Beta'].map((name) => [name, new RegExp(`(\\w+) button "${name}"`).exec(snapshot)?.[1]]));
    assert.ok(refs.Alpha && refs.Beta, snapshot);
    const seen = (await call('eval', { script: 'window.renders' })).value;
    await call('wait_for_fn', { script: `window.renders > ${seen} + 1` });
    // The snapshot's nodes were replaced twice. Stop the ticker now: a render between
    // press and release would take the click away in any browser (WebKit fires no click
    // once the pressed node left the document), which is not what this test is about.
    // The old nodes are garbage: the page allocates until the engine collects.
    await call('eval', { script: 'clearInterval(window.ticker); for (let i = 0; i < 40; i++) { let junk = []; for (let j = 0; j < 100000; j++) junk.push({ j }); } 1' });
    await call('click', { ref: refs.Beta });
    assert.deepEqual(await hits(), ['Beta']);
    // A row deleted: its ref must not move to another row.
    await call('eval', { script: "document.querySelector('#list li').remove(); 1" });
    await callError(mcp, 'click', { ref: refs.Alpha }, 'STALE_REF');
    assert.deepEqual(await hits(), ['Beta']);
  }));

  it('a click the page takes away by rendering the element anew as it is pressed is reported', logged(async () => {
    await open('rerender.html');
    // The list renders anew on each press: the release reaches a new node, and WebKit
    // fires no click on a node other than the one pressed.
    await call('eval', { script: "clearInterval(window.ticker); document.getElementById('list').addEventListener('pointerdown', () => render()); 1" });
    const result = await call('click', { selector: '#list li:nth-child(2) button' });
    assert.deepEqual(await hits(), []);
    assert.match(result.note ?? '', /no click event fired/, JSON.stringify(result));
    // Without the renders, the same click is heard and nothing is said.
    await open('rerender.html');
    await call('eval', { script: 'clearInterval(window.ticker); 1' });
    const heard = await call('click', { selector: '#list li:nth-child(2) button' });
    assert.deepEqual(await hits(), ['Beta']);
    assert.equal(heard.note, undefined);
  }));

  it('a selector waits for its element to appear', logged(async () => {
    await open('enabled-later.html');
    await call('eval', { script: "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<button id=late data-hit=late>Late</button>'), 300); 1" });
    await call('click', { selector: '#late' });
    assert.deepEqual(await hits(), ['late']);
  }));
});
