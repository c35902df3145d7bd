// Frames: their elements show in the snapshot with refs that every element
// tool accepts, and clicks land inside the frame. Same-origin frames are read
// in place; a cross-origin frame's own agent answers for it, and no page can
// read those answers or forge the requests.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { callError, callJson, callText } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';
import { waitFor } from './support/wait.mjs';

describe('frames', { timeout: 120_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const inner = (selector) => call('eval', { script: `document.querySelector('iframe').contentDocument.querySelector('${selector}')` + '.textContent' });

  let session;
  before(async () => {
    session = await startLoggedIn();
    ({ fixtures, browser, mcp } = session);
  }, { timeout: 90_000 });

  after(async () => { await session?.stop(); });

  it('inlines the frame, and its refs click and fill inside it', { timeout: 60_000 }, withBrowserLog(() => browser, async () => {
    await call('open', { url: fixtures.url('frames.html') });
    await waitFor(async () => (await callText(mcp, 'snapshot')).includes('Inner button'), 'the frame to load');
    const snap = await callText(mcp, 'snapshot');
    assert.match(snap, /e\d+ button "Outer button"/);
    const button = refOf(snap, 'button', 'Inner button');
    const note = refOf(snap, 'textbox', 'Note');
    const clicked = await call('click', { ref: button });
    assert.equal(clicked.navigated, false);
    await waitFor(async () => (await inner('#out')).value === 'inner clicked true', 'the trusted click inside the frame');
    assert.equal((await call('fill', { ref: note, value: 'written in a frame' })).value, 'written in a frame');
    assert.equal((await callText(mcp, 'get_text', { ref: note })).trim(), 'written in a frame');

    // find looks inside same-origin frames, with the same refs, and says which frame.
    const found = await call('find_role', { role: 'button', name: 'Inner button' });
    assert.equal(found.ref, button);
    assert.equal(found.frame, 'iframe');
    assert.equal(found.selector, 'button');
  }));

  it('lists a cross-origin frame, nested frames too, with f-refs that click, fill and read', { timeout: 60_000 }, withBrowserLog(() => browser, async () => {
    await call('open', { url: fixtures.url('frames-cross.html') });
    await waitFor(async () => (await callText(mcp, 'snapshot')).includes('Inner button'), 'the frames to load');
    const snap = await callText(mcp, 'snapshot');
    const outer = refOf(snap, 'button', 'Outer button');
    const button = refOf(snap, 'button', 'Cross button');
    const note = refOf(snap, 'textbox', 'Secret note');
    const nested = refOf(snap, 'button', 'Inner button');
    assert.match(outer, /^e\d+$/);
    assert.match(button, /^f\d+e\d+$/, 'a cross-origin frame gives frame-qualified refs');
    assert.match(nested, /^f\d+e\d+$/, 'a same-origin frame inside it is inlined with its refs');
    assert.deepEqual(await call('eval', { script: 'window.leaked' }), { type: 'object', value: [] },
      'the top page hears nothing of the frame agent');

    // The frame is below the first screen: the click scrolls it into view and lands inside.
    const clicked = await call('click', { ref: button });
    assert.equal(clicked.navigated, false);
    await waitFor(async () => (await callText(mcp, 'snapshot', { interactive: false })).includes('cross clicked true'),
      'the trusted click inside the cross-origin frame');
    assert.equal((await call('fill', { ref: note, value: 'typed across origins' })).value, 'typed across origins');
    assert.equal((await callText(mcp, 'get_text', { ref: note })).trim(), 'typed across origins');
    assert.match(await callText(mcp, 'snapshot'), /f\d+e\d+ textbox "Secret note": typed across origins/);
    await call('click', { ref: nested });
    await waitFor(async () => (await callText(mcp, 'snapshot', { interactive: false })).includes('inner clicked true'),
      'the click in the frame nested in the cross-origin frame');

    // The full tree puts the frame's content under the iframe, indented.
    const full = await callText(mcp, 'snapshot', { interactive: false });
    assert.match(full, /e\d+ iframe "Cross frame"\n {2}(?:.*\n {2})*f\d+e\d+ textbox "Secret note"/);
    assert.equal(full.includes('\u0001'), false, 'no frame marker is left in the text');
    const missing = await callError(mcp, 'find_text', { text: 'Cross button' }, 'ELEMENT_NOT_FOUND');
    assert.match(missing, /cross-origin frames are not searched/);
  }));

  it('a click after frame_switch lands inside a cross-origin frame below the first screen', { timeout: 60_000 }, withBrowserLog(() => browser, async () => {
    await call('open', { url: fixtures.url('frames-cross.html') });
    await waitFor(async () => (await callText(mcp, 'snapshot')).includes('Cross button'), 'the frame to load');
    await call('eval', { script: "document.getElementById('cross').style.marginTop = '3000px'; 1" });
    await call('frame_switch', { selector: '#cross' });
    try {
      assert.equal((await call('click', { selector: 'button' })).clicked, true);
      assert.match(await callText(mcp, 'get_text', { selector: '#out' }), /cross clicked true/, 'the cross-origin button saw no click');
    } finally {
      await call('frame_main');
    }
    assert.ok((await call('eval', { script: 'scrollY' })).value > 2000, 'the top page was not scrolled to the frame');
  }));

  it('refuses requests forged by a page, and old frame refs go stale', { timeout: 60_000 }, withBrowserLog(() => browser, async () => {
    await call('open', { url: fixtures.url('frames-cross.html') });
    await waitFor(async () => (await callText(mcp, 'snapshot')).includes('Secret note'), 'the frame to load');
    const note = refOf(await callText(mcp, 'snapshot'), 'textbox', 'Secret note');
    const local = note.replace(/^f\d+/, '');
    const frameFocused = "document.activeElement === document.getElementById('cross')";
    // A page that knows the protocol but not the key asks the frame's agent to focus a field.
    await call('eval', { script: `
      const body = JSON.stringify({ op: 'focus', args: { ref: '${local}' }, prefix: 'f1', x: 0, y: 0, vw: 0, vh: 0, floor: 0, time: Date.now() });
      const win = document.getElementById('cross').contentWindow;
      win.postMessage({ __sovereignFrameRequest: { nonce: 'n1', body, mac: '0'.repeat(64) } }, '*');
      win.postMessage({ __sovereignFrameRequest: { nonce: 'n2', body } }, '*');
      true` });
    // A real request to the frame's agent goes the same way, after the forged
    // ones (messages from one window to another arrive in order): once it is
    // answered, the frame's agent has seen the forged requests too.
    assert.equal(typeof (await callText(mcp, 'get_text', { ref: note })), 'string', 'the frame agent answers a real request');
    assert.equal((await call('eval', { script: frameFocused })).value, false, 'a forged request did nothing');
    await call('focus', { ref: note });
    await waitFor(async () => (await call('eval', { script: frameFocused })).value === true, 'the real focus to reach the frame');

    await call('open', { url: fixtures.url('frames-cross.html') });
    await callError(mcp, 'get_text', { ref: note }, 'STALE_REF');
  }));
});
