// A hostile web page, in one of our own tabs and in another browser on the
// same machine, tries every way a page has to drive the server (even knowing
// its port and token): simple and CORS POSTs, a form post, a WebSocket to
// /agent, the panel API. Nothing may get through: the identity stays logged in.
import { describe, it, before, after } from 'node:test';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { loggedInSuite } from './support/session.mjs';
import { startBrowser } from './support/browser.mjs';
import { callError, callText } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('hostile pages', { timeout: 120_000 }, () => {
  // The files folder agents' tools are confined to, and a place of the
  // person's beside it (as ~/.ssh is).
  const top = mkdtempSync(path.join(os.tmpdir(), 'sovereign-hostile-'));
  const files = path.join(top, 'files');
  const home = path.join(top, 'home');
  mkdirSync(files);
  mkdirSync(home);
  after(() => rmSync(top, { recursive: true, force: true }));
  const suite = loggedInSuite({ args: ['--files-dir', files] });
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

  // Regression: an agent could open the panel in a tab, where the panel's
  // cookie would have made it the person.
  it('no tab opens the browser\'s own server: not an agent\'s open, not a page\'s link', { timeout: 30_000 }, logged(async () => {
    const { base, panelUrl } = suite.session.browser;
    const port = new URL(base).port;
    for (const url of [panelUrl, `${base}/`, `http://localhost:${port}/panel/index.html`, `http://[::1]:${port}/`]) {
      const why = await callError(suite.mcp, 'open', { url }, 'INVALID_PARAMS');
      assert.match(why, /own server/, url);
    }
    // A page's own navigation there is refused too: the page stays.
    await call('open', { url: suite.fixtures.url('form.html') });
    const target = JSON.stringify(`${base}/`);
    await call('eval', { script: `location.href = ${target}; 1` });
    await waitFor(() => suite.session.browser.stderr().includes("navigation to the browser's own server was refused"),
      'the browser to refuse the navigation');
    assert.match((await call('get_url')).url, /form\.html$/);
    assert.doesNotMatch(JSON.stringify(await call('tab_list')), new RegExp(`:${port}/`), 'no tab shows the server');
  }));

  // Regression: an agent could upload any file the user can read (an SSH
  // key, the profile's identities), open file: URLs and read them, and write
  // PDFs and state files (all cookies) anywhere.
  it('agents\' files stay in the files folder: nothing outside, no link out, no file: URL', { timeout: 30_000 }, logged(async () => {
    const secret = path.join(home, 'id_ed25519');
    writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY-----');
    const missing = path.join(home, 'no_such_key');
    await call('open', { url: suite.fixtures.url('upload.html') });
    const refusedReal = await callError(suite.mcp, 'upload', { selector: '#one', files: [secret] }, 'INVALID_PARAMS');
    const refusedMissing = await callError(suite.mcp, 'upload', { selector: '#one', files: [missing] }, 'INVALID_PARAMS');
    assert.match(refusedReal, /outside the files folder/);
    assert.equal(refusedReal.replace(secret, 'X'), refusedMissing.replace(missing, 'X'), 'a refusal does not tell whether the file exists');
    symlinkSync(secret, path.join(files, 'key'));
    assert.match(await callError(suite.mcp, 'upload', { selector: '#one', files: [path.join(files, 'key')] }, 'INVALID_PARAMS'), /outside/);
    assert.match(await callError(suite.mcp, 'upload', { selector: '#one', files: [`${files}/../home/id_ed25519`] }, 'INVALID_PARAMS'), /outside/);
    assert.equal(await callText(suite.mcp, 'get_text', { selector: '#seen' }), '', 'the page got no file');

    symlinkSync(home, path.join(files, 'out'));
    for (const target of [path.join(home, 'page.pdf'), path.join(files, 'out', 'page.pdf')]) {
      await callError(suite.mcp, 'pdf', { path: target }, 'INVALID_PARAMS');
    }
    await callError(suite.mcp, 'state_save', { path: path.join(home, 'cookies.json') }, 'INVALID_PARAMS');
    await callError(suite.mcp, 'state_load', { path: secret }, 'INVALID_PARAMS');
    assert.deepEqual(readdirSync(home), ['id_ed25519'], 'nothing was written beside the key');

    for (const url of [`file://${secret}`, 'file:///etc/hostname', 'FILE:///etc/passwd']) {
      assert.match(await callError(suite.mcp, 'open', { url }, 'INVALID_PARAMS'), /file: URLs/);
      await callError(suite.mcp, 'tab_new', { url }, 'INVALID_PARAMS');
    }

    // Inside the folder everything works.
    const inside = path.join(files, 'ok.txt');
    writeFileSync(inside, 'fine');
    assert.deepEqual((await call('upload', { selector: '#one', files: [inside] })).files.map((f) => f.name), ['ok.txt']);
    assert.ok((await call('pdf', { path: path.join(files, 'page.pdf') })).bytes > 1000);
  }));

  it('the files folder may not hold the profile', { timeout: 30_000 }, async () => {
    const profile = path.join(files, 'profile');
    await assert.rejects(startBrowser({ args: ['--profile', profile, '--files-dir', files], baseArgs: ['--headless', '--no-panel', '--port', '0'] }),
      /holds the profile/);
  });

  // Regression: document.execCommand('paste') gave any page the clipboard,
  // where people put their nsec, seed words and bunker URLs.
  it('a page reads nothing from the clipboard by itself; the clipboard tools and a clicked Copy still work', { timeout: 30_000 }, logged(async () => {
    const secret = 'nsec1thepersonjustcopiedthisdonotleak';
    await call('clipboard_write', { text: secret });
    await call('open', { url: suite.fixtures.url('clipboard.html') });
    const stolen = (await call('wait_for_fn', { script: 'window.stolen', timeout: 10_000 })).value;
    assert.equal(stolen.pasted, false, 'execCommand(paste) is refused');
    assert.equal(stolen.field, '', 'nothing was pasted into the page');
    assert.ok(!String(stolen.read).includes(secret), `the async API gave nothing: ${stolen.read}`);
    // The browser's own tools still paste, as a person's Ctrl+V would.
    await call('click', { selector: '#loot' });
    await call('clipboard_paste');
    assert.equal((await call('get_value', { selector: '#loot' })).value, secret);
    // A page's Copy button still copies on a real click.
    await call('click', { selector: '#copy' });
    assert.equal((await call('eval', { script: 'window.copied' })).value, true);
    assert.deepEqual(await call('clipboard_read'), { text: 'Text the page offers to copy' });
  }));

  // Regression: console entries came from a handler any page could post to,
  // so a page could write entries claiming another site's URL, or errors.
  it('console and errors hold only what the engine logged, whatever a page posts', { timeout: 30_000 }, logged(async () => {
    await call('console', { clear: true });
    await call('errors', { clear: true });
    await call('open', { url: suite.fixtures.url('console-forge.html') });
    const texts = async () => (await call('console')).entries.map((e) => e.text);
    await waitFor(async () => (await texts()).includes('from the frame'), 'the frame\'s real message');
    await waitFor(async () => (await texts()).includes('the page really logged this'), 'the page\'s real message');
    const log = await call('console');
    const errors = await call('errors');
    const all = JSON.stringify([log, errors]);
    assert.ok(!all.includes('FORGED'), `nothing forged got in: ${all}`);
    assert.ok(!all.includes('bank.example'), 'no entry claims another site');
    assert.equal(errors.count, 0, 'the page threw nothing');
    const real = log.entries.find((e) => e.text === 'the page really logged this');
    assert.equal(real.source, 'console-api');
    assert.match(real.url, /console-forge\.html$/);
  }));

  // Regression: details were not tied to their frame (a cross-origin frame
  // could post, ahead of time, the text of the top page's next message), an
  // uncaught error in a frame was filed under the tab's page, and a lone
  // surrogate reached the extension's GVariant unchecked.
  it('a frame cannot write another frame\'s console text, errors name their frame, a lone surrogate is kept', { timeout: 30_000 }, logged(async () => {
    await call('console', { clear: true });
    await call('errors', { clear: true });
    await call('open', { url: suite.fixtures.url('console-frames.html') });
    const top = /\/console-frames\.html$/;
    const entries = async () => (await call('console', { limit: 1000 })).entries;
    await waitFor(async () => (await entries()).some((e) => e.text === 'after the surrogate'), 'the page\'s last message');
    await waitFor(async () => (await call('errors')).count > 0, 'the frame\'s uncaught error');
    // The tab's web process lives on.
    assert.equal((await call('eval', { script: '1 + 1' })).value, 2);
    const log = await entries();
    const mine = log.filter((e) => top.test(e.url));
    assert.ok(mine.some((e) => /^\uFFFD+$/.test(e.text)), `the surrogate's entry: ${JSON.stringify(mine)}`);
    const shared = mine.filter((e) => e.text.startsWith('shared key'));
    assert.deepEqual(shared.map((e) => e.text), ['shared key the page\'s own words'], JSON.stringify(log));
    assert.ok(!JSON.stringify(mine).includes('FORGED'), `nothing of the frame's in the page's entries: ${JSON.stringify(mine)}`);
    const [thrown] = (await call('errors')).entries;
    assert.match(thrown.text, /the frame threw/);
    assert.match(thrown.url, /\/console-frames-inner\.html$/, 'the error names the frame it came from');
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
