// Same-origin frames: their elements show in the snapshot with refs that
// every element tool accepts, and clicks land inside the frame.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { callJson, callText } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';
import { waitFor } from './support/wait.mjs';

describe('same-origin frames', { timeout: 120_000 }, () => {
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
    assert.match(snap, /button "Outer button" \[ref=e\d+\]/);
    const button = refOf(snap, 'button', 'Inner button');
    const note = refOf(snap, 'textbox', 'Note');
    const clicked = await call('click', { ref: button });
    assert.equal(clicked.navigated, false);
    await waitFor(async () => (await inner('#out')).value === 'inner clicked true', 'the trusted click inside the frame');
    assert.equal((await call('fill', { ref: note, value: 'written in a frame' })).value, 'written in a frame');
    assert.equal((await callText(mcp, 'get_text', { ref: note })).trim(), 'written in a frame');
  }));
});
