// The vault in the control panel, as a person uses it in a browser
// (Chromium): making it under a password, adding an entry, locking and
// opening it, removing the entry; an agent meanwhile sees only names and
// origins, and the page never shows a value back.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { TEST_NSEC, callError, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const PASSWORD = 'panel vault password';
const VALUES = ['grace-hopper', 'cobol-is-forever-42', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'];

describe('the vault in the panel', { timeout: 300_000 }, () => {
  let browser;
  let mcp;
  let chrome;
  let page;
  const errors = [];
  const test = (name, fn) => it(name, { timeout: 90_000 }, withBrowserLog(() => browser, fn));
  const state = () => page.locator('#vault-section').getAttribute('data-state');
  const inState = (want) => waitFor(async () => (await state()) === want, `the vault section to be ${want}`);
  const listed = () => callJson(mcp, 'secrets_list');

  before(async () => {
    browser = await startBrowser();
    mcp = await connectMcp(browser, { name: 'panel-vault-agent' });
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    chrome = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 60_000,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const context = await chrome.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(browser.panelUrl, { waitUntil: 'load' });
  }, { timeout: 120_000 });

  after(async () => {
    await chrome?.close().catch(() => {});
    await mcp?.close().catch(() => {});
    await browser?.stop();
  });

  test('the person makes the vault; two different passwords are caught first', async () => {
    await inState('none');
    const create = page.locator('#vault-create');
    await create.locator('input[name=password]').fill(PASSWORD);
    await create.locator('input[name=confirm]').fill(`${PASSWORD}!`);
    await create.locator('button[type=submit]').click();
    await waitFor(async () => /differ/.test(await page.locator('#vault-error').textContent()), 'the mismatch said');
    assert.equal(await state(), 'none');
    await create.locator('input[name=confirm]').fill(PASSWORD);
    await create.locator('button[type=submit]').click();
    await inState('open');
    assert.match(await page.locator('#vault-state').textContent(), /Open: 0 entries/);
  });

  test('an entry added is listed with its fields, never its values; the agent sees its name', async () => {
    const form = page.locator('#vault-entry');
    await form.locator('input[name=name]').fill('navy');
    await form.locator('textarea[name=origins]').fill('https://navy.example\nhttp://127.0.0.1:8080');
    await form.locator('input[name=user]').fill(VALUES[0]);
    await form.locator('input[name=password]').fill(VALUES[1]);
    await form.locator('input[name=totp]').fill(VALUES[2]);
    await form.locator('button[type=submit]').click();
    const row = page.locator('#vault-entries li[data-name="navy"]');
    await row.waitFor();
    assert.deepEqual(await row.locator('.fields .pill').allTextContents(), ['user name', 'password', 'one-time code']);
    assert.equal(await row.locator('.origins').textContent(), 'https://navy.example:443, http://127.0.0.1:8080');
    // The form was emptied, and nothing on the page holds a value.
    const html = await page.content();
    const typed = await form.locator('input').evaluateAll((inputs) => inputs.map((i) => i.value).join(' '));
    for (const value of VALUES) {
      assert.ok(!html.includes(value), `the page shows ${value}`);
      assert.ok(!typed.includes(value), `the form still holds ${value}`);
    }
    const seen = await listed();
    assert.deepEqual(seen.entries, [{ name: 'navy', origins: ['https://navy.example:443', 'http://127.0.0.1:8080'], fields: ['user', 'password', 'totp'] }]);
  });

  test('locked, the agent sees nothing; the wrong password is said and opens nothing', async () => {
    await page.locator('#vault-lock').click();
    await inState('locked');
    assert.equal((await listed()).open, false);
    const unlock = page.locator('#vault-unlock');
    await unlock.locator('input[name=password]').fill('not it at all');
    await unlock.locator('button[type=submit]').click();
    await waitFor(async () => /not right/.test(await page.locator('#vault-error').textContent()), 'the wrong password said');
    assert.equal(await state(), 'locked');
    await unlock.locator('input[name=password]').fill(PASSWORD);
    await unlock.locator('button[type=submit]').click();
    await inState('open');
    assert.equal((await listed()).entries[0].name, 'navy');
  });

  test('an entry that asks each time waits for the person\'s Allow in the panel, naming the agent and the site', async () => {
    const site = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Bank</title><label>Password <input id="password" type="password"></label>');
    });
    await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${site.address().port}`;
    try {
      const form = page.locator('#vault-entry');
      await form.locator('input[name=name]').fill('bank');
      await form.locator('textarea[name=origins]').fill(origin);
      await form.locator('input[name=password]').fill(VALUES[1]);
      await form.locator('input[name=ask_each_time]').check();
      await form.locator('button[type=submit]').click();
      const row = page.locator('#vault-entries li[data-name="bank"]');
      await row.waitFor();
      assert.equal(await row.locator('.asks').textContent(), 'asks you each time');
      assert.equal((await listed()).entries.find((e) => e.name === 'bank').ask_each_time, true, 'the agent is told it will wait');
      await callJson(mcp, 'open', { url: `${origin}/` });
      const filled = callJson(mcp, 'fill', { selector: '#password', secret: 'bank', field: 'password', timeout: 60_000 });
      const waiting = page.locator('#vault-waiting li');
      await waiting.waitFor();
      assert.match(await waiting.locator('.what').textContent(),
        new RegExp(`^An agent calling itself “panel-vault-agent” asks to fill bank's password on ${origin} \\(tab \\d+\\)$`));
      await waiting.locator('button[data-answer=allow]').click();
      assert.deepEqual(await filled, { filled: true, secret: 'bank', field: 'password' });
      await waitFor(async () => (await page.locator('#vault-waiting-part').isHidden()), 'the waiting list to go');
      // The next use asks again: Deny refuses it, saying the rule.
      const denied = callError(mcp, 'fill', { selector: '#password', secret: 'bank', field: 'password', timeout: 60_000 }, 'SECRET_REFUSED');
      await waiting.waitFor();
      await waiting.locator('button[data-answer=deny]').click();
      assert.match(await denied, /^asked: the person said no to this use of bank/);
      await page.locator('#vault-entries li[data-name="bank"] button[data-action=remove]').click();
      await waitFor(async () => (await page.locator('#vault-entries li[data-name="bank"]').count()) === 0, 'the row to go');
      assert.ok(!(await page.content()).includes(VALUES[1]), 'the page shows the password');
    } finally {
      site.close();
    }
  });

  test('removing the entry takes it from the agent too, and the page threw nothing', async () => {
    await page.locator('#vault-entries li[data-name="navy"] button[data-action=remove]').click();
    await waitFor(async () => (await page.locator('#vault-entries li').count()) === 0, 'the row to go');
    assert.deepEqual((await listed()).entries, []);
    assert.deepEqual(errors, []);
  });
});
