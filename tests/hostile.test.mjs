// A hostile web page, in one of our own tabs and in another browser on the
// same machine, tries every way a page has to drive the server (even knowing
// its port and token): simple and CORS POSTs, a form post, a WebSocket to
// /agent, the panel API. Nothing may get through: the identity stays logged in.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { loggedInSuite } from './support/session.mjs';
import { callText } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('hostile pages', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  const attackUrl = () => {
    const { port, token } = suite.session.browser;
    return suite.fixtures.url(`attack.html?port=${port}&token=${token}`);
  };
  const stillLoggedIn = async () => assert.equal((await call('login_status')).logged_in, true, 'the page logged nobody out');

  it('a page in one of our tabs cannot drive the server', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: attackUrl() });
    let log = '';
    await waitFor(async () => (log = await callText(suite.mcp, 'get_text', { selector: '#log' })).includes('done'), 'the attack to finish');
    assert.doesNotMatch(log, /websocket: OPEN|websocket: message|cors post: status 200/, log);
    assert.match(log, /websocket: (error|closed|refused)/);
    for (const attempt of [/form post: sent/, /no-cors post: /, /cors post: failed/, /panel api: /]) {
      assert.match(log, attempt, 'every attempt ran');
    }
    await stillLoggedIn();
  }));

  it('tool arguments reaching the page stay data, never code', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await call('eval', { script: 'window.pwned = false; 1' });
    const nasty = `'");window.pwned=true;//\\n</script><script>window.pwned=true</script>\u2028 é🙂 \${1+1}`;
    assert.equal((await call('fill', { selector: '#name', value: nasty })).value, nasty);
    assert.equal((await call('get_value', { selector: '#name' })).value, nasty);
    // C strings end at NUL: refused plainly, and the browser carries on.
    for (const [tool, args] of [['fill', { selector: '#name', value: 'a\u0000b' }], ['open', { url: 'http://x/\u0000' }],
      ['cookies_set', { name: 'n', value: '\u0000' }], ['set_credentials', { user: 'a\u0000' }]]) {
      const refused = await suite.mcp.callTool(tool, args);
      assert.equal(refused.structuredContent?.error?.code, 'INVALID_PARAMS', tool);
    }
    assert.equal((await call('get_value', { selector: '#name' })).value, nasty);
    for (const [tool, args] of [
      ['find_text', { text: nasty }],
      ['find_label', { label: nasty }],
      ['get_count', { selector: `a[title="${nasty}"]` }],
      ['wait_for_text', { text: nasty, timeout: 100 }],
      ['storage_local_get_key', { key: nasty }],
      ['press', { key: `');window.pwned=true;('` }],
    ]) {
      const result = await suite.mcp.callTool(tool, args);
      const code = result.structuredContent?.error?.code;
      assert.ok(!['JS_ERROR', 'INTERNAL'].includes(code), `${tool}: ${JSON.stringify(result).slice(0, 300)}`);
    }
    assert.equal((await call('eval', { script: 'window.pwned' })).value, false, 'nothing ran');
  }));

  describe('in another browser on this machine', () => {
    let browser;
    before(async () => {
      browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
    }, { timeout: 60_000 });
    after(async () => { await browser?.close(); });

    it('Chromium on the same machine cannot drive it either', { timeout: 30_000 }, logged(async () => {
      const page = await browser.newPage();
      await page.goto(attackUrl());
      await page.waitForFunction(() => document.getElementById('log').textContent.includes('done'), null, { timeout: 15_000 });
      const log = await page.textContent('#log');
      assert.doesNotMatch(log, /websocket: OPEN|websocket: message|cors post: status 200/, log);
      await stillLoggedIn();
    }));
  });
});
