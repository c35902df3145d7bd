// alert, confirm, prompt and beforeunload: what the page gets back from each
// answer, and the clear DIALOG_OPEN error while one blocks the page.
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('JavaScript dialogs', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  const out = async () => (await callText(mcp, 'get_text', { selector: '#out' })).trim();
  const open = () => call('open', { url: suite.fixtures.url('dialogs.html') });
  const opened = (type) => waitFor(async () => (await call('dialog_status')).type === type, `a ${type} dialog`);

  it('alert blocks page tools with DIALOG_OPEN until accepted', { timeout: 30_000 }, logged(async () => {
    await open();
    assert.deepEqual(await call('dialog_status'), { open: false });
    await call('click', { selector: '#alert' });
    await opened('alert');
    assert.equal((await call('dialog_status')).message, 'Hello there');
    assert.match(await callError(mcp, 'get_text', { selector: '#out' }, 'DIALOG_OPEN'), /alert dialog is open.*"Hello there".*dialog_accept/);
    await call('dialog_accept');
    assert.equal(await out(), 'alert closed');
    await callError(mcp, 'dialog_accept', {}, 'INVALID_PARAMS');
  }));

  it('confirm gets true or false, prompt gets the text or null', { timeout: 30_000 }, logged(async () => {
    await open();
    await call('click', { selector: '#confirm' });
    await opened('confirm');
    await call('dialog_accept');
    assert.equal(await out(), 'confirm true');
    await call('click', { selector: '#confirm' });
    await opened('confirm');
    await call('dialog_dismiss');
    assert.equal(await out(), 'confirm false');
    await call('click', { selector: '#prompt' });
    await opened('prompt');
    assert.equal((await call('dialog_status')).default_text, 'Ada');
    await call('dialog_accept', { text: 'Grace "quoted" </script>' });
    assert.equal(await out(), 'prompt Grace "quoted" </script>');
    await call('click', { selector: '#prompt' });
    await opened('prompt');
    await call('dialog_accept');
    assert.equal(await out(), 'prompt Ada', 'no text keeps the default');
    await call('click', { selector: '#prompt' });
    await opened('prompt');
    await call('dialog_dismiss');
    assert.equal(await out(), 'prompt null');
  }));

  it('beforeunload: dismiss stays on the page, accept leaves', { timeout: 30_000 }, logged(async () => {
    await open();
    await call('check', { selector: '#guard' });
    const leaving = mcp.callTool('open', { url: suite.fixtures.url('form.html') });
    await opened('beforeunload');
    await call('dialog_dismiss');
    const stayed = await leaving;
    assert.equal(stayed.structuredContent.error.code, 'NAVIGATION_FAILED');
    assert.match(stayed.content[0].text, /asked to stay \(beforeunload\)/);
    assert.match((await call('get_url')).url, /dialogs\.html$/, 'still on the page');
    assert.equal((await call('tab_list')).tabs[0].loading, false);
    const again = call('open', { url: suite.fixtures.url('form.html') }).catch((e) => e);
    await opened('beforeunload');
    await call('dialog_accept');
    await again;
    await waitFor(async () => /form\.html$/.test((await call('get_url')).url), 'the page to be left');
  }));
});
