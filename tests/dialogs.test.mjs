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

  it('beforeunload: the navigation answers DIALOG_OPEN at once, naming the ways out; dismiss stays, accept leaves', { timeout: 30_000 }, logged(async () => {
    await open();
    await call('check', { selector: '#guard' });
    const asked = await callError(mcp, 'reload', {}, 'DIALOG_OPEN');
    assert.match(asked, /the page asks before it is left \(a beforeunload dialog/);
    assert.match(asked, /dialog_accept leaves it.*dialog_dismiss stays.*leave: true/);
    assert.equal((await call('dialog_status')).type, 'beforeunload');
    await call('dialog_dismiss');
    assert.match((await call('get_url')).url, /dialogs\.html$/, 'still on the page');
    assert.equal(await out(), 'nothing yet', 'not reloaded');
    // WebKit asks again only after the page had a gesture since it last asked.
    await call('uncheck', { selector: '#guard' });
    await call('check', { selector: '#guard' });
    await callError(mcp, 'open', { url: suite.fixtures.url('form.html') }, 'DIALOG_OPEN');
    await call('dialog_accept');
    await waitFor(async () => /form\.html$/.test((await call('get_url')).url), 'the page to be left');
    assert.equal((await call('dialog_status')).open, false);
  }));

  it('beforeunload: open, back and reload with leave: true leave as a person answering "Leave" would', { timeout: 30_000 }, logged(async () => {
    await open();
    await call('check', { selector: '#guard' });
    const left = await call('open', { url: suite.fixtures.url('form.html'), leave: true });
    assert.match(left.url, /form\.html$/);
    assert.equal(left.title, 'Sign up');
    await open();
    await call('check', { selector: '#guard' });
    // A navigation an earlier call left asking is answered by the next with leave.
    await callError(mcp, 'open', { url: suite.fixtures.url('form.html') }, 'DIALOG_OPEN');
    const back = await call('back', { leave: true });
    assert.doesNotMatch(back.url, /dialogs\.html$/, JSON.stringify(back));
    assert.equal((await call('dialog_status')).open, false);
  }));
});
