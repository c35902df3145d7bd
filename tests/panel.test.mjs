// The control panel end to end: the real browser binary serves it, Chromium
// shows it (as any browser on this machine would), and the tests do what a
// person does: log in through the forms, watch sessions, tabs and the call
// log change live, end a session, switch and close tabs. Plus the guards: a
// page from another origin cannot use the panel's API, nothing works
// without the person's panel key, and the agents' token never opens it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { waitFor as eventually } from './support/wait.mjs';
import { startBrowser, withBrowserLog, REPO_ROOT } from './support/browser.mjs';
import { startBunker } from './support/bunker.mjs';
import { closedPort, startFixtureServer } from './support/fixture-server.mjs';
import { tryAgentHandshake } from './support/agent.mjs';
import { MODERN_PROTOCOL, TEST_NSEC, TEST_NPUB, TEST_PUBKEY, callError, callJson, connectMcp, modernCall, modernMeta } from './support/mcp.mjs';
import { assertPng } from './support/png.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts');

// A second identity for the read-only login: the public key of private key 1.
const G_PUBKEY = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';

// ---------------------------------------------------------------------------
// bech32 npub, to recognise a bunker's user key however the panel shows it.

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
function polymod(values) {
  const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i];
  }
  return chk;
}
function npubOf(hex) {
  const hrp = 'npub';
  const data = [];
  let acc = 0;
  let bits = 0;
  for (const byte of Buffer.from(hex, 'hex')) {
    acc = ((acc << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      data.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) data.push((acc << (5 - bits)) & 31);
  const expanded = [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];
  const mod = polymod([...expanded, ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((d) => CHARSET[d]).join('')}`;
}
/** The bytes of a bech32 string (checksum not checked), as hex. */
function hexOfBech32(text) {
  const words = [...text.slice(text.lastIndexOf('1') + 1, -6)].map((c) => CHARSET.indexOf(c));
  const bytes = [];
  let acc = 0;
  let bits = 0;
  for (const w of words) {
    acc = ((acc << 5) | w) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >>> bits) & 0xff);
    }
  }
  return Buffer.from(bytes).toString('hex');
}
assert.equal(npubOf(TEST_PUBKEY), TEST_NPUB, 'the bech32 helper');
assert.equal(hexOfBech32(TEST_NPUB), TEST_PUBKEY, 'the bech32 helper');
const TEST_SECRET_HEX = hexOfBech32(TEST_NSEC);
const G_NPUB = npubOf(G_PUBKEY);

// ---------------------------------------------------------------------------


/** A server on another 127.0.0.1 port: a foreign origin for the cross-site checks. */
async function startForeignSite() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>Elsewhere</title></head>'
      + '<body><p>Some other site</p></body></html>\n');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** In a page: open a WebSocket and say how it ended: "open", "closed <code>" or "timeout". */
const PROBE_WEBSOCKET = (url) => new Promise((resolve) => {
  let opened = false;
  const ws = new WebSocket(url);
  ws.onopen = () => { opened = true; ws.close(); resolve('open'); };
  ws.onclose = (e) => { if (!opened) resolve(`closed ${e.code}`); };
  setTimeout(() => resolve('timeout'), 8000);
});

describe('control panel', { timeout: 300_000 }, () => {
  let browser;
  let chrome;
  let context;
  let page; // the panel, open for the whole file
  let fixtures;
  let foreign;
  const clients = []; // MCP clients to close
  const bunkers = [];
  const consoleErrors = [];
  const requests = []; // every request the panel page made
  const received = []; // every WebSocket message the panel page received
  const secrets = [TEST_NSEC, TEST_SECRET_HEX]; // what must never reach the panel
  let panelOrigin;

  const test = (name, fn, opts = {}) => it(name, { timeout: 60_000, ...opts }, withBrowserLog(() => browser, async (t) => {
    try {
      return await fn(t);
    } catch (err) {
      // A picture of what the person would have seen.
      if (page && !page.isClosed()) {
        const slug = name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').slice(0, 60);
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: path.join(ARTIFACTS, `failed-${slug}.png`), fullPage: true, timeout: 10_000 }).catch(() => {});
      }
      throw err;
    }
  }));

  const mcpClient = async (name) => {
    const c = await connectMcp(browser, { name, timeout: 30_000 });
    clients.push(c);
    return c;
  };
  let observer; // an MCP client the tests use to check what the panel did
  const status = () => callJson(observer, 'login_status');

  // What a person sees in a part of the page.
  const seen = (selector) => page.locator(selector).first().innerText({ timeout: 5_000 });
  const identityText = () => seen('#identity-status');

  /** Opens the login form: when someone is logged in, through "Switch identity". */
  async function openLoginForm() {
    const form = page.locator('#login-form');
    if (!(await form.isVisible())) {
      const sw = page.locator('#switch');
      assert.ok(await sw.isVisible(), 'the login form is hidden and there is no visible #switch button to open it');
      await sw.click();
      await form.waitFor({ state: 'visible', timeout: 5_000 });
    }
  }

  /** Fills the login form for a method and submits it. */
  async function submitLogin(method, fields) {
    await openLoginForm();
    await page.selectOption('#method-select', method);
    for (const [name, value] of Object.entries(fields)) {
      const input = page.locator(`#login-form [name="${name}"]:visible`);
      await input.fill(value, { timeout: 5_000 });
    }
    await page.click('#login-submit');
  }

  /** The rows of the call log for this tool. */
  const logRows = (tool) => page.locator(`#call-log [data-tool="${tool}"]`);

  before(async () => {
    // Pictures of failures from an earlier run would mislead.
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const f of readdirSync(ARTIFACTS)) if (/^failed-.*\.png$/.test(f)) rmSync(path.join(ARTIFACTS, f));
    fixtures = await startFixtureServer();
    foreign = await startForeignSite();
    browser = await startBrowser();
    panelOrigin = browser.base;
    observer = await mcpClient('panel-test-observer');
    chrome = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 60_000,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await chrome.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const where = msg.location()?.url;
      consoleErrors.push(`console: ${msg.text()}${where ? ` (${where})` : ''}`);
    });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${err.message}\n${err.stack ?? ''}`));
    page.on('request', (req) => requests.push(req.url()));
    page.on('websocket', (ws) => {
      requests.push(ws.url());
      ws.on('framereceived', ({ payload }) => received.push(String(payload)));
    });
    page.on('dialog', (dialog) => dialog.accept().catch(() => {}));
  }, { timeout: 120_000 });

  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await context?.close().catch(() => {});
    await chrome?.close().catch(() => {});
    await browser?.stop();
    for (const b of bunkers) b.stop();
    await fixtures?.close();
    await foreign?.close();
  });

  const foreignRequests = () => requests.filter((u) => {
    const { protocol, host } = new URL(u);
    const own = host === new URL(panelOrigin).host && ['http:', 'ws:'].includes(protocol);
    return !own;
  });

  test('the page loads cleanly, drops the key from the address bar and stays connected', async () => {
    assert.ok(browser.panelKey, 'the browser printed the panel key in the panel URL');
    assert.notEqual(browser.panelKey, browser.token, 'the person\'s key is not the agents\' token');
    await page.goto(browser.panelUrl, { waitUntil: 'load' });
    // The state arrives: the client snippets carry this server's MCP endpoint and the agents' token.
    const snippet = page.locator('#client-config pre[data-client="claude-code"]');
    await eventually(async () => {
      const text = await snippet.textContent();
      return text.includes(browser.mcpUrl) && text.includes(browser.token);
    }, 'the Claude Code snippet to show the MCP endpoint and the token');
    for (const client of ['roo-code', 'cursor']) {
      const text = await page.locator(`#client-config pre[data-client="${client}"]`).textContent();
      assert.ok(text.includes(browser.mcpUrl) && text.includes(browser.token),
        `the ${client} snippet has the endpoint and the token: ${text}`);
    }
    await eventually(async () => /not logged in/i.test(await identityText()), '#identity-status to say "Not logged in"');
    assert.ok(!page.url().includes('key='), `the key is gone from the address bar: ${page.url()}`);
    assert.equal(new URL(page.url()).origin, panelOrigin);
    assert.equal(await page.evaluate(() => document.cookie), '', 'no script of the page can read the key');
    for (const text of await page.locator('#client-config pre').allTextContents()) {
      assert.ok(!text.includes(browser.panelKey), 'the snippets never carry the person\'s key');
    }

    // Regression: the key was a cookie for 127.0.0.1, which Chromium sends
    // to every port of it: any other server on this machine received it.
    for (const c of await context.cookies()) {
      assert.ok(!c.value.includes(browser.panelKey), `no cookie holds the key: ${c.name}`);
    }
    const elsewhere = await context.newPage();
    try {
      await elsewhere.goto(fixtures.url('/echo'), { waitUntil: 'load' });
      const sent = await elsewhere.locator('#echo').textContent();
      assert.ok(!sent.includes(browser.panelKey), `another loopback port was sent the key: ${sent}`);
      assert.equal(await elsewhere.evaluate(() => sessionStorage.length), 0, 'nor does another origin see it');
    } finally {
      await elsewhere.close();
    }

    // Still connected after the key left the URL: a reload keeps working (the key stays in the tab's session storage).
    await page.reload({ waitUntil: 'load' });
    assert.ok(!page.url().includes('key='), `no key after a reload: ${page.url()}`);
    await eventually(async () => /not logged in/i.test(await identityText()), 'the state again after a reload');
    assert.ok(await page.locator('#token-banner').isHidden(), 'no "needs the key" banner after a reload');

    // Late errors would come while the reloaded page handles what is pushed
    // to it: a call made now is pushed, and shown once the page has handled it.
    const rows = await logRows('login_status').count();
    await status();
    await eventually(async () => (await logRows('login_status').count()) > rows, 'the page to show a call made after the reload');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.deepEqual(consoleErrors, [], 'no console errors');
    assert.deepEqual(foreignRequests(), [], `only requests to ${panelOrigin}`);
    assert.ok(requests.some((u) => u.startsWith(`ws://${new URL(panelOrigin).host}/api/panel`)),
      `the page opened its WebSocket: ${JSON.stringify(requests)}`);
  });

  test('the login form has a field for each of the login tool\'s parameters, by method', async () => {
    const login = (await observer.listTools()).find((t) => t.name === 'login');
    const { properties } = login.inputSchema;
    const methods = properties.method.enum;
    await openLoginForm();
    assert.deepEqual(await page.locator('#method-select option').evaluateAll((os) => os.map((o) => o.value)), methods);
    const visible = async () => page.locator('#login-form [name]:visible').evaluateAll((els) => els.map((e) => e.name));
    const seen = new Set();
    const owners = {};
    for (const method of methods) {
      await page.selectOption('#method-select', method);
      for (const name of await visible()) {
        seen.add(name);
        if (!['method', 'remember'].includes(name)) (owners[name] ||= []).push(method);
      }
    }
    // Each method shows its own fields only (the login tool refuses another's).
    for (const [name, shownFor] of Object.entries(owners)) {
      assert.equal(shownFor.length, 1, `${name} shows for ${shownFor.join(' and ')}`);
    }
    assert.deepEqual(owners.nsec, ['local']);
    assert.deepEqual(owners.mnemonic, ['seed']);
    assert.deepEqual(owners.npub, ['readonly']);
    assert.deepEqual(owners.bunker_url, ['nip46']);
    assert.deepEqual(owners.device, ['nsigner']);
    // Remembering, with the password that encrypts the key, for a private key.
    await page.selectOption('#method-select', 'local');
    await page.locator('#login-form [name="remember"]').check();
    (await visible()).forEach((n) => seen.add(n));
    await page.locator('#login-form [name="remember"]').uncheck();
    await page.selectOption('#method-select', 'nsigner');
    await page.selectOption('#login-form [name="transport"]', 'qrexec');
    (await visible()).forEach((n) => seen.add(n));
    await page.selectOption('#login-form [name="transport"]', 'serial');
    const expected = Object.keys(properties).filter((n) => n !== 'remembered').sort();
    assert.deepEqual([...seen].sort(), expected, 'every parameter but remembered (the list below) has a field');
    // Secrets are typed hidden.
    await page.selectOption('#method-select', 'local');
    assert.equal(await page.locator('#login-form [name="nsec"]').getAttribute('type'), 'password');
  });

  test('a bad nsec shows an error under the nsec field and changes nothing', async () => {
    const before = await status();
    assert.equal(before.logged_in, false);
    await submitLogin('local', { nsec: 'nsec1notavalidkey' });
    const error = page.locator('.field-error[data-for="nsec"]');
    await eventually(async () => (await error.innerText()).trim() !== '', 'an error under the nsec field');
    assert.match(await error.innerText(), /valid/i, 'the error says what is wrong');
    assert.ok(await page.locator('#login-error').isHidden(), 'the error is under the field, not a form-level one');
    assert.equal(await page.locator('#login-form [name="nsec"]').inputValue(), '', 'the nsec field is cleared after submit');
    assert.match(await identityText(), /not logged in/i, 'the identity shown is unchanged');
    assert.deepEqual(await status(), before, 'the identity is unchanged');
  });

  test('log in with an nsec through the form', async () => {
    await submitLogin('local', { nsec: TEST_NSEC });
    await eventually(async () => (await identityText()).includes(TEST_NPUB), `#identity-status to show ${TEST_NPUB}`);
    assert.equal(await page.locator('#login-form [name="nsec"]').inputValue(), '', 'the nsec field is empty afterwards');
    assert.equal((await page.locator('.field-error[data-for="nsec"]').innerText()).trim(), '',
      'the old error under the nsec field is gone');
    const s = await status();
    assert.equal(s.logged_in, true);
    assert.equal(s.method, 'local');
    assert.equal(s.npub, TEST_NPUB);
    assert.ok(await page.locator('#logout').isVisible(), 'a Log out button is shown');
    // The identity audit shows the login, as the person's.
    const row = page.locator('#audit tbody tr[data-action="login"]', { hasText: TEST_NPUB.slice(0, 10) });
    await eventually(async () => (await row.count()) >= 1, 'the login in the identity audit');
    assert.match(await row.first().innerText(), /Login · method local[\s\S]*by you[\s\S]*done/);
  });

  test('switch to a read-only identity with an npub (and remember it)', async () => {
    await openLoginForm();
    await page.selectOption('#method-select', 'readonly');
    await page.locator('#login-form [name="npub"]').fill(G_NPUB);
    await page.locator('#login-form [name="remember"]').check();
    await page.click('#login-submit');
    await eventually(async () => {
      const text = await identityText();
      return text.includes(G_NPUB) && /read-?only/i.test(text);
    }, `#identity-status to show read-only and ${G_NPUB}`);
    assert.ok(!(await identityText()).includes(TEST_NPUB), 'the old npub is gone from the status');
    const s = await status();
    assert.equal(s.method, 'readonly');
    assert.equal(s.npub, G_NPUB);
    const remembered = page.locator(`#remembered [data-npub="${G_NPUB}"]`);
    await remembered.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await remembered.getAttribute('data-method'), 'readonly');
  });

  test('log out from the panel', async () => {
    await page.click('#logout');
    await eventually(async () => /not logged in/i.test(await identityText()), '#identity-status to say "Not logged in"');
    assert.equal((await status()).logged_in, false);
  });

  test('a remembered identity can be picked and forgotten', async () => {
    const row = page.locator(`#remembered [data-npub="${G_NPUB}"]`);
    await row.locator('[data-action="login"]').click();
    await eventually(async () => {
      const text = await identityText();
      return text.includes(G_NPUB) && /read-?only/i.test(text);
    }, `#identity-status to show the remembered ${G_NPUB}`);
    assert.equal((await status()).npub, G_NPUB);
    await row.locator('[data-action="forget"]').click();
    await row.locator('[data-action="forget-confirm"]').click();
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await page.locator('#remembered [data-npub]').count(), 0, 'nothing is remembered any more');
    assert.equal((await status()).npub, G_NPUB, 'forgetting does not log out');
  });

  test('log in through a real bunker', async () => {
    const bunker = await startBunker();
    bunkers.push(bunker);
    secrets.push(new URL(bunker.url).searchParams.get('secret'));
    const npub = npubOf(bunker.user);
    await submitLogin('nip46', { bunker_url: bunker.url });
    await eventually(async () => {
      const text = await identityText();
      return text.includes(npub) || text.includes(bunker.user);
    }, `#identity-status to show the bunker's user ${npub}`, 30_000);
    assert.equal(await page.locator('#login-form [name="bunker_url"]').inputValue(), '',
      'the bunker URL (it holds a secret) is cleared after submit');
    const s = await status();
    assert.equal(s.method, 'nip46');
    assert.equal(s.pubkey, bunker.user);
  }, { timeout: 90_000 });

  test('a bunker that asks for approval: the link appears, and the login completes without a reload', async () => {
    const bunker = await startBunker(['--auth-url']);
    bunkers.push(bunker);
    secrets.push(new URL(bunker.url).searchParams.get('secret'));
    const npub = npubOf(bunker.user);
    await page.evaluate(() => { window.__noReloadMark = 'still the same page'; });
    await submitLogin('nip46', { bunker_url: bunker.url });

    const link = page.locator('#auth-url');
    await link.waitFor({ state: 'visible', timeout: 30_000 });
    const href = await eventually(() => link.evaluate((el) => (el.matches('a[href]') ? el : el.querySelector('a[href]'))?.href ?? null),
      'a link in #auth-url');
    assert.equal(href, bunker.approve, 'the link goes to the bunker\'s approval page');
    assert.equal((await status()).logged_in, false, 'not logged in before the approval');

    // The person clicks the link and approves.
    const approval = await fetch(bunker.approve);
    assert.equal(approval.status, 200);

    await eventually(async () => {
      const text = await identityText();
      return text.includes(npub) || text.includes(bunker.user);
    }, `#identity-status to show the approved user ${npub}`, 30_000);
    await eventually(() => link.isHidden(), 'the approval link to go away');
    assert.equal(await page.evaluate(() => window.__noReloadMark), 'still the same page', 'the page was not reloaded');
    const s = await status();
    assert.equal(s.logged_in, true);
    assert.equal(s.pubkey, bunker.user);
  }, { timeout: 90_000 });

  test('an MCP session shows live, its calls are logged, and it can be ended from the panel', async () => {
    const mcp = await mcpClient('panel-test-client');
    const id = mcp.transport.sessionId;
    const protocol = mcp.transport.protocolVersion;
    assert.ok(id && protocol, 'the MCP client has a session id and a protocol version');
    const row = page.locator(`#sessions [data-session-id="${id}"]`);
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    const text = await row.innerText();
    assert.ok(text.includes('panel-test-client'), `the session row names the client: ${text}`);
    assert.ok(text.includes(protocol), `the session row shows protocol ${protocol}: ${text}`);

    const before = await logRows('get_url').count();
    assert.equal(typeof (await callJson(mcp, 'get_url')).url, 'string');
    await eventually(async () => (await logRows('get_url').count()) > before, 'a get_url row in #call-log');
    const logged = await logRows('get_url').last().innerText();
    assert.ok(logged.includes('panel-test-client'), `the log row names the client: ${logged}`);
    assert.match(logged, /mcp/i, `the log row shows the transport: ${logged}`);

    assert.equal(await row.getAttribute('data-transport'), 'mcp');
    const end = row.locator('button[data-action="end"]');
    assert.match(await end.innerText(), /end/i, 'the button says End');
    await end.click();
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    let failure;
    try {
      const result = await mcp.callTool('get_url', {}, { timeout: 10_000 });
      if (result.isError) failure = JSON.stringify(result);
    } catch (err) {
      failure = err.message;
    }
    assert.ok(failure, 'the ended session can no longer call tools');
    assert.match(failure, /404|session/i, `the failure says the session is gone: ${failure}`);
    // The browser itself is fine: other sessions still work.
    assert.equal((await status()).logged_in, true);
  });

  test('a client of 2026-07-28 shows by its clientInfo, stateless, and its calls are logged', async () => {
    const meta = modernMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'panel-stateless-client', version: '9.1' } });
    const title = await modernCall(browser, 'get_title', {}, { meta });
    assert.equal(title.resultType, 'complete');
    const row = page.locator('#sessions-mcp tr[data-stateless="true"]', { hasText: 'panel-stateless-client' });
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    const text = await row.innerText();
    assert.ok(text.includes('9.1'), `the row shows the client's version: ${text}`);
    assert.ok(text.includes(`${MODERN_PROTOCOL} · stateless`), `the row shows the revision: ${text}`);
    assert.equal(await row.locator('button[data-action="end"]').count(), 0, 'no session to end');
    await eventually(async () => {
      const rows = await logRows('get_title').allInnerTexts();
      return rows.some((r) => r.includes('panel-stateless-client'));
    }, 'the stateless client\'s call in #call-log');
  });

  test('the call log can be filtered and paused', async () => {
    const mcp = await mcpClient('panel-test-log');
    await callJson(mcp, 'get_title');
    await mcp.callTool('click', { ref: '@e999' }); // fails: an error row
    await logRows('get_title').first().waitFor({ state: 'visible', timeout: 10_000 });
    await logRows('click').first().waitFor({ state: 'visible', timeout: 10_000 });
    const shown = () => page.locator('#call-log tbody tr:not([hidden])')
      .evaluateAll((rows) => rows.map((r) => ({ tool: r.dataset.tool, ok: r.dataset.ok })));

    await page.fill('#log-filter', 'get_title');
    await eventually(async () => {
      const rows = await shown();
      return rows.length > 0 && rows.every((r) => r.tool.includes('get_title'));
    }, 'only get_title rows with the filter "get_title"');
    await page.fill('#log-filter', '');
    await eventually(async () => (await shown()).some((r) => r.tool === 'get_url'), 'all rows again without the filter');

    await page.check('#log-errors');
    await eventually(async () => {
      const rows = await shown();
      return rows.length > 0 && rows.every((r) => r.ok === 'false') && rows.some((r) => r.tool === 'click');
    }, 'only failed calls with "Errors only"');
    await page.uncheck('#log-errors');

    const pause = page.locator('#log-pause');
    const count = await logRows('get_title').count();
    await pause.click();
    assert.equal(await pause.getAttribute('aria-pressed'), 'true', 'the Pause button is pressed');
    await callJson(mcp, 'get_title');
    // The panel has the call (it counts it as waiting) and shows no row for it.
    await eventually(async () => /1 waiting/.test(await seen('#log-count')), 'the log count to say one call is waiting');
    assert.equal(await logRows('get_title').count(), count, 'no new row while paused');
    await pause.click();
    assert.equal(await pause.getAttribute('aria-pressed'), 'false');
    await eventually(async () => (await logRows('get_title').count()) === count + 1, 'the held call to show after resuming');
  });

  test('tabs show in the panel and can be switched and closed from it', async () => {
    const mcp = await mcpClient('panel-test-tabs');
    const call = (tool, args) => callJson(mcp, tool, args);
    await call('tab_new', { url: fixtures.url('/form.html') });
    await call('tab_new', { url: fixtures.url('/links.html') });
    const tabs = (await call('tab_list')).tabs;
    const rows = page.locator('#tabs [data-tab-index]');
    await eventually(async () => (await rows.count()) === tabs.length, `${tabs.length} rows in #tabs`);
    for (const tab of tabs) {
      // The state is pushed twice a second: a title may come a moment after the URL.
      await eventually(async () => {
        const text = await page.locator(`#tabs [data-tab-index="${tab.index}"]`).innerText();
        return text.includes(tab.url) && text.includes(tab.title) && !/loading/i.test(text);
      }, `tab ${tab.index} to show its title "${tab.title}" and URL ${tab.url}`);
    }

    // Bring the "Sign up" tab to the front from the panel.
    const form = tabs.find((t) => t.title === 'Sign up');
    assert.ok(form, `the form tab is listed: ${JSON.stringify(tabs)}`);
    assert.equal(form.front, false, 'the form tab is not in front yet');
    const formRow = page.locator(`#tabs [data-tab-index="${form.index}"]`);
    await formRow.locator('button[data-action="switch"]').click();
    await eventually(async () => (await call('tab_list')).tabs.find((t) => t.index === form.index)?.front,
      'tab_list to show the form tab in front');
    await eventually(async () => (await formRow.getAttribute('data-front')) === 'true', 'the panel to show the form tab in front');
    assert.equal(await page.locator('#tabs [data-front="true"]').count(), 1, 'one tab is in front');

    // Close the "Links" tab from the panel.
    const links = tabs.find((t) => t.title === 'Links');
    await page.locator(`#tabs [data-tab-index="${links.index}"] button[data-action="close"]`).click();
    await eventually(async () => {
      const now = (await call('tab_list')).tabs;
      return now.length === tabs.length - 1 && !now.some((t) => t.url === links.url);
    }, 'tab_list without the Links tab');
    await eventually(async () => (await rows.count()) === tabs.length - 1, `${tabs.length - 1} rows in #tabs`);
    assert.ok(!(await page.locator('#tabs').innerText()).includes(links.url), 'the closed tab is gone from the panel');

    // Logged out, tab actions are refused: the panel says so calmly, and nothing changes.
    await callJson(observer, 'logout');
    await eventually(async () => /not logged in/i.test(await identityText()), 'the panel to show the logout');
    const tabsBefore = await rows.count();
    await page.locator('#tabs [data-tab-index="0"] button[data-action="close"]').click();
    const note = page.locator('#tabs-note');
    await note.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await note.innerText(), /log in/i, 'the note asks to log in first');
    assert.equal(await rows.count(), tabsBefore, 'no tab was closed');
    // Logged in again (through the first bunker, which asks no approval).
    const back = await callJson(observer, 'login', { method: 'nip46', bunker_url: bunkers[0].url });
    assert.equal(back.pubkey, bunkers[0].user);
    await eventually(() => note.isHidden(), 'the note to go away once logged in');
  });

  test('contexts show live in the panel, apart from the person\'s tabs, and close from it', async () => {
    const mcp = await mcpClient('panel-test-contexts');
    const yours = await page.locator('#tabs [data-tab-index]').count();
    const opened = await callJson(mcp, 'context_new', { name: 'errand' });
    await callJson(mcp, 'login', { method: 'local', privkey_hex: '0000000000000000000000000000000000000000000000000000000000000001' });
    await callJson(mcp, 'open', { url: fixtures.url('/form.html') });
    const row = page.locator('#contexts tr[data-context="errand"]');
    await eventually(async () => (await row.count()) === 1 && /ephemeral/.test(await row.innerText()) && /\b1\b/.test(await row.locator('.tabs').innerText()),
      'the context in #contexts, ephemeral, with its one tab');
    // Its own identity, not the person's.
    await eventually(async () => (await row.locator('.identity').innerText()).includes(G_NPUB.slice(0, 10)), 'the context\'s identity in its row');
    // The session working there, bound to it in both tables.
    await eventually(async () => (await row.locator('.sessions').innerText()).trim() === '1', 'one session in the context');
    const session = page.locator('#sessions tr', { hasText: 'panel-test-contexts' });
    await eventually(async () => (await session.getAttribute('data-context')) === 'errand', 'the session\'s context in #sessions');
    // Its tab, and that tab's requests.
    const tabRow = page.locator(`#context-tabs tr[data-tab-id="${opened.tab}"]`);
    await eventually(async () => (await tabRow.count()) === 1 && (await tabRow.getAttribute('data-context')) === 'errand'
      && (await tabRow.innerText()).includes('/form.html'), 'the context\'s tab in #context-tabs');
    await tabRow.locator('button[data-action="requests"]').click();
    await page.locator('#requests-section').waitFor({ state: 'visible' });
    assert.match(await seen('#requests-heading'), /^Requests of tab \d+ in context errand$/);
    await page.locator('#requests tbody tr', { hasText: '/form.html' }).first().waitFor({ state: 'visible' });
    await page.click('#requests-close');
    // Its calls: the log filtered to the context.
    await row.locator('button[data-action="calls"]').click();
    assert.equal(await page.locator('#log-context').inputValue(), 'errand');
    const shownCalls = page.locator('#call-log tbody tr:not([hidden])');
    await eventually(async () => (await shownCalls.count()) > 0, 'the context\'s calls in the log');
    const shownContexts = await shownCalls.evaluateAll((rows) => rows.map((r) => r.dataset.context));
    assert.ok(shownContexts.every((c) => c === 'errand'), `only the context's calls: ${shownContexts}`);
    const shownTools = await shownCalls.evaluateAll((rows) => rows.map((r) => r.dataset.tool));
    assert.ok(shownTools.includes('open') && shownTools.includes('login'), `its open and login: ${shownTools}`);
    assert.ok((await page.locator('#call-log tbody tr[hidden]').count()) > 0, 'other contexts\' calls are hidden');
    await page.selectOption('#log-context', '');
    const own = page.locator('#contexts tr[data-default="true"]');
    assert.match(await own.innerText(), /default \(yours\)/);
    assert.equal(await own.locator('button[data-action="close"]').isVisible(), false, 'the person\'s context has no Close');
    // The person logs the agent's context out; their own identity stays.
    const before = (await status()).pubkey;
    await row.locator('button[data-action="logout"]').click();
    await eventually(async () => /not logged in/i.test(await row.locator('.identity').innerText()), 'the context logged out');
    await callError(mcp, 'get_url', {}, 'NOT_LOGGED_IN');
    assert.equal((await status()).pubkey, before, 'the person\'s identity is untouched');
    await callJson(mcp, 'login', { method: 'local', privkey_hex: '0000000000000000000000000000000000000000000000000000000000000001' });
    // The context's tab is not among the person's.
    assert.equal(await page.locator(`#tabs [data-tab-id="${opened.tab}"]`).count(), 0);
    assert.equal(await page.locator('#tabs [data-tab-index]').count(), yours);

    await row.locator('button[data-action="close"]').click();
    await eventually(async () => (await row.count()) === 0, 'the closed context to leave #contexts');
    // The agent working there hears it once, then works in the default context.
    await callError(mcp, 'get_url', {}, 'NO_CONTEXT');
    assert.equal((await callJson(mcp, 'tab_list')).context, 'default');
  });

  test('a tab\'s requests show live, open to their headers and body, and the call log links to them', async () => {
    const mcp = await mcpClient('panel-test-network');
    const call = (tool, args) => callJson(mcp, tool, args);
    await call('tab_new', { url: fixtures.url(`/network.html?refused=${await closedPort()}`) });
    await call('click', { selector: '#run' });
    await eventually(async () => (await call('eval', { script: 'document.getElementById("out").textContent' })).value,
      'the page\'s requests to end');
    const tab = (await call('tab_list')).tabs.find((t) => t.url.includes('/network.html'));
    await page.locator(`#tabs tr[data-tab-id="${tab.id}"] button[data-action="requests"]`).click();
    const section = page.locator('#requests-section');
    await section.waitFor({ state: 'visible' });
    assert.equal(await seen('#requests-heading'), `Requests of tab ${tab.index}`);
    const row = (text) => page.locator('#requests tbody tr', { hasText: text });
    await row('/net/missing').waitFor({ state: 'visible' });
    assert.equal(await row('/net/missing').getAttribute('data-status'), '404');
    assert.equal(await row('/net/missing').getAttribute('data-failed'), 'true');
    assert.match(await row('/refused').innerText(), /Could not connect/);
    assert.match(await row('/net/pixel.png').innerText(), /image/);
    assert.equal(await row('/net/json?via=fetch').getAttribute('data-failed'), 'false');

    // Live: a request the page makes now shows without a reload.
    await call('eval', { script: "return (await fetch('/net/json?via=live')).status" });
    await row('via=live').waitFor({ state: 'visible', timeout: 10_000 });

    // The filters.
    await page.fill('#requests-filter', 'via=');
    await eventually(async () => (await page.locator('#requests tbody tr').count()) === 5, 'the five requests matching via= (fetch, xhr, frame, frame-xhr, live)');
    await page.fill('#requests-filter', '');
    await page.check('#requests-failed');
    const failed = await page.locator('#requests tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.failed));
    assert.ok(failed.length >= 3 && failed.every((f) => f === 'true'), `only failed rows: ${failed}`);
    await page.uncheck('#requests-failed');

    // Saved as HAR, in the files folder.
    await page.click('#requests-har');
    await eventually(async () => /^Saved \d+ requests as HAR to \/.+\.har$/.test(await seen('#requests-note')), 'the HAR saved');
    const harPath = (await seen('#requests-note')).replace(/^.* to /, '');
    assert.equal(JSON.parse(readFileSync(harPath, 'utf8')).log.version, '1.2');

    // A request's details: its headers and its body.
    await row('via=live').locator('button[data-action="details"]').click();
    await eventually(async () => (await seen('#request-detail-body')).includes('{"hello":"network","query":"?via=live"}'),
      'the body in the details');
    assert.match(await seen('#request-detail-body'), /X-Fixture: json/);

    // The call log: the eval that fetched links to that one request.
    await page.click('#requests-close');
    await section.waitFor({ state: 'hidden' });
    const link = page.locator('#call-log tbody tr[data-tool="eval"] td.requests button').first();
    assert.equal(await link.innerText(), '1 request');
    await link.click();
    await section.waitFor({ state: 'visible' });
    const linked = page.locator('#requests tbody tr.linked');
    await linked.first().waitFor({ state: 'visible' });
    assert.equal(await linked.count(), 1);
    assert.match(await linked.innerText(), /via=live/);
  });

  test('an agent\'s work shows as a timeline, live: its steps, the element, a failure, a step\'s details and requests', async () => {
    const mcp = await mcpClient('panel-test-recorded');
    const call = (tool, args) => callJson(mcp, tool, args);
    await call('tab_new', { url: fixtures.url('/form.html') });
    await call('fill', { selector: '#name', value: 'Grace' });
    const missing = await mcp.callTool('click', { selector: '#no-such-button', timeout: 100 });
    assert.equal(missing.isError, true);

    const session = page.locator('#recorded-sessions tr[data-client="panel-test-recorded"]');
    await eventually(async () => (await session.count()) === 1, 'the recorded session in #recorded-sessions');
    await eventually(async () => (await session.locator('.steps').innerText()).trim() === '3', 'its three steps');
    assert.equal((await session.locator('.failed').innerText()).trim(), '1');
    await session.locator('button[data-action="open"]').click();
    const step = (tool) => page.locator(`#timeline tbody tr[data-tool="${tool}"]`);
    await step('fill').waitFor({ state: 'visible' });
    assert.match(await step('fill').innerText(), /textbox "Name"/);
    assert.equal(await step('click').getAttribute('data-ok'), 'false');
    // Live: a step the agent takes now shows without a reload.
    await call('get_url');
    await step('get_url').waitFor({ state: 'visible', timeout: 10_000 });
    // The failures only.
    await page.check('#timeline-failed');
    await eventually(async () => (await page.locator('#timeline tbody tr').count()) === 1, 'only the failed click');
    await page.uncheck('#timeline-failed');
    // The page after each input, in the row and in the details.
    const thumb = step('fill').locator('.shot img[src^="data:image/jpeg"]');
    await thumb.waitFor({ state: 'visible', timeout: 10_000 });
    await eventually(async () => (await thumb.evaluate((img) => img.complete && img.naturalWidth)) > 100, 'the picture to load');
    // A step's details: its arguments and pages; its requests.
    await step('fill').locator('button[data-action="details"]').click();
    await page.locator('#step-shot[src^="data:image/jpeg"]').waitFor({ state: 'visible', timeout: 10_000 });
    await eventually(async () => (await page.locator('#step-shot').evaluate((img) => img.complete && img.naturalWidth)) > 100,
      'the larger picture to load');
    assert.match(await seen('#step-detail-body'), /"value": "Grace"/);
    assert.match(await seen('#step-detail-body'), /element: textbox "Name"/);
    await step('tab_new').locator('button[data-action="details"]').click();
    await page.click('#step-requests');
    await page.locator('#requests-section').waitFor({ state: 'visible' });
    await page.locator('#requests tbody tr.linked', { hasText: '/form.html' }).first().waitFor({ state: 'visible' });
    await page.click('#requests-close');
    await page.click('#step-detail-close');
    // The session as a flow to replay, in the files folder.
    await page.click('#timeline-export-flow');
    const saved = page.locator('#toasts .toast', { hasText: 'Saved the flow' });
    await saved.waitFor({ state: 'visible' });
    const file = (await saved.innerText()).match(/to (\/\S+\.flow\.json)$/)[1];
    const flow = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(flow.steps.map((s) => [s.tool, s.target?.name]), [['tab_new', undefined], ['fill', 'Name']]);
    assert.equal(flow.steps[1].value.value, 'Grace');
  });

  test('an agent\'s request for the person shows in the panel and is answered there', async () => {
    const mcp = await mcpClient('panel-test-asker');
    const call = (tool, args) => callJson(mcp, tool, args);
    await call('tab_new', { url: fixtures.url('/form.html') });
    // The agent ran its own script in the tab: the person is told what that means.
    await call('eval', { script: "document.addEventListener('input', () => {}); 'listening'" });
    const asked = call('ask_person', { message: 'Please sign in to the shop', timeout: 60_000 });
    const item = page.locator('#asks > li', { hasText: 'Please sign in to the shop' });
    await item.waitFor({ state: 'visible' });
    assert.match(await item.innerText(), /An agent calling itself “panel-test-asker” asks you, in tab \d+ \(Sign up\)/);
    await item.locator('.ask-agent').waitFor({ state: 'visible' });
    assert.equal(await item.locator('.ask-agent').innerText(), 'An agent ran its own script in this tab or routed its requests: what you type there may reach it.');
    assert.match(await item.locator('.prompt-left').innerText(), /^\d+:\d\d left$/);
    await item.locator('input[name="note"]').fill('use the other card');
    await item.locator('button[data-answer="declined"]').click();
    assert.deepEqual(
      { ...(await asked), waited_ms: 0 },
      { answer: 'declined', note: 'use the other card', waited_ms: 0 },
    );
    await page.locator('#asks-section').waitFor({ state: 'hidden' });
  });

  test('axe-core finds no violation (WCAG 2 A and AA, best practices), light and dark', async () => {
    // The state to check: tabs with one in front, sessions, logged calls.
    await page.locator('#tabs [data-front="true"]').waitFor({ state: 'visible', timeout: 10_000 });
    await page.locator('#call-log tbody tr').first().waitFor({ state: 'visible', timeout: 10_000 });
    // A toast of an earlier step fading out is, for a moment, text too faint to read:
    // the check is of the page at rest.
    await page.waitForFunction(() => !document.querySelector('#toasts .toast'), null, { timeout: 10_000 });
    const axe = readFileSync(path.join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      // Evaluated, not added as a script tag: the panel's CSP allows no inline script.
      if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axe);
      const violations = await page.evaluate(async () => {
        const result = await window.axe.run(document, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
        });
        return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      });
      assert.deepEqual(violations, [], `${colorScheme}: ${violations.join('\n')}`);
    }
    await page.emulateMedia({ colorScheme: null });
  });

  test('pause and resume the agents from the panel', async () => {
    const mcp = await mcpClient('panel-test-pause');
    const button = page.locator('#pause-agents');
    await button.click();
    await eventually(async () => (await button.getAttribute('aria-pressed')) === 'true', 'the button to show the pause');
    const paused = await mcp.callTool('get_url', {});
    assert.equal(paused.isError, true);
    assert.match(paused.content[0].text, /^PAUSED: a person has taken over/);
    await button.click();
    await eventually(async () => (await button.getAttribute('aria-pressed')) === 'false', 'the button to show the resume');
    assert.equal(typeof (await callJson(mcp, 'get_url')).url, 'string');
  });

  test('another site cannot use the panel API, and nothing works without the person\'s key', async () => {
    const host = new URL(panelOrigin).host;
    const before = await status();
    assert.equal(before.logged_in, true);

    const evil = await context.newPage();
    try {
      await evil.goto(foreign.origin + '/', { waitUntil: 'load' });
      const ws = await evil.evaluate(PROBE_WEBSOCKET, `ws://${host}/api/panel`);
      assert.match(ws, /^closed/, `a foreign page's WebSocket to /api/panel (with the key's cookie) fails: ${ws}`);
      const agent = await evil.evaluate(PROBE_WEBSOCKET, `ws://${host}/agent?token=${browser.token}`);
      assert.match(agent, /^closed/, `a foreign page's WebSocket to /agent fails: ${agent}`);
      // Simple (no-preflight) POSTs: an empty one, and ones that would change the identity.
      const bodies = [
        '{}',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } } }),
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'login', arguments: { method: 'readonly', npub: G_NPUB } } }),
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'logout', arguments: {} } }),
      ];
      for (const body of bodies) {
        await evil.evaluate(([url, b]) => fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: b })
          .then(() => 'sent', (e) => `failed: ${e}`), [browser.mcpUrl, body]);
        await evil.evaluate(([url, b]) => fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: b })
          .then(() => 'sent', (e) => `failed: ${e}`), [`${browser.mcpUrl}?token=${browser.token}`, body]);
      }
    } finally {
      await evil.close();
    }
    // Each request above was answered before the next was sent; this status
    // call comes after them all.
    assert.deepEqual(await status(), before, 'nobody was logged in or out by the other site');

    // What the server answers a foreign Origin, seen directly.
    const fromForeign = await tryAgentHandshake(`ws://${host}/api/panel`, { Origin: foreign.origin, Authorization: `Bearer ${browser.panelKey}` });
    assert.deepEqual(fromForeign, { opened: false, status: 403 }, 'a foreign Origin is refused with 403');

    // The right origin without the key: another browser profile, with no cookie.
    const stranger = await chrome.newContext();
    const bare = await stranger.newPage();
    try {
      await bare.goto(`${panelOrigin}/`, { waitUntil: 'load' });
      await bare.locator('#token-banner').waitFor({ state: 'visible', timeout: 10_000 });
      const ws = await bare.evaluate(PROBE_WEBSOCKET, `ws://${host}/api/panel`);
      assert.match(ws, /^closed/, `the panel WebSocket without the key fails: ${ws}`);
      const plain = await bare.evaluate(() => fetch('/api/panel').then((r) => r.status));
      assert.equal(plain, 401, 'GET /api/panel without the key is 401');
      // The banner's form takes the key, and the page then connects.
      await bare.locator('#token-input').fill(browser.panelKey);
      await bare.locator('#token-submit').click();
      await bare.locator('#connection[data-state="open"]').waitFor({ timeout: 10_000 });
      assert.ok(!bare.url().includes('key='), `the key left the address bar: ${bare.url()}`);
    } finally {
      await stranger.close();
    }
    const noToken = await tryAgentHandshake(`ws://${host}/api/panel`, { Origin: panelOrigin });
    assert.deepEqual(noToken, { opened: false, status: 401 }, '/api/panel without the key is refused with 401');
    const wrongKey = await tryAgentHandshake(`ws://${host}/api/panel`, { Origin: panelOrigin, Authorization: `Bearer ${'0'.repeat(64)}` });
    assert.deepEqual(wrongKey, { opened: false, status: 401 }, '/api/panel with a wrong key is refused with 401');
    // Regression: the agents' token opened the person's panel, so an agent
    // could answer its own window.nostr prompts.
    for (const headers of [{ Authorization: `Bearer ${browser.token}` }, { Origin: panelOrigin, Authorization: `Bearer ${browser.token}` }]) {
      const agentsToken = await tryAgentHandshake(`ws://${host}/api/panel`, headers);
      assert.deepEqual(agentsToken, { opened: false, status: 401 }, `/api/panel with the agents' token is refused (${Object.keys(headers)})`);
    }
    const inUrl = await tryAgentHandshake(`ws://${host}/api/panel?token=${browser.token}`, { Origin: panelOrigin });
    assert.deepEqual(inUrl, { opened: false, status: 401 }, 'nor is the token taken from the URL');
  });

  test('a screenshot of the panel for people to look at', async () => {
    // Logged in, with a session and some calls in the log.
    const mcp = await mcpClient('panel-screenshot-client');
    await callJson(mcp, 'get_url');
    await callJson(mcp, 'get_title');
    await mcp.callTool('click', { ref: '@e999' }); // an error row
    await page.locator(`#sessions [data-session-id="${mcp.transport.sessionId}"]`).waitFor({ state: 'visible', timeout: 10_000 });
    await logRows('get_title').first().waitFor({ state: 'visible', timeout: 10_000 });
    await logRows('click').first().waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal((await status()).logged_in, true);

    // From the top, as a person first sees it (the header stays at the top of the page).
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForFunction(() => window.scrollY === 0);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, 'panel.png');
    await page.screenshot({ path: file, fullPage: true, timeout: 15_000 });
    const { width, height } = assertPng(readFileSync(file), 'panel.png');
    assert.ok(width >= 1000 && height >= 600, `a full page: ${width}x${height}`);

    assert.equal(await page.evaluate(() => window.__noReloadMark), 'still the same page',
      'everything since the bunker login arrived live, without a reload');
    assert.deepEqual(consoleErrors, [], 'no console errors on the panel during the whole run');
    assert.ok(received.length > 10, `the panel received pushes (${received.length})`);
    for (const secret of secrets) {
      assert.ok(secret && !received.some((m) => m.includes(secret)), `no secret (${secret.slice(0, 8)}…) was ever sent to the panel`);
    }
    assert.deepEqual(foreignRequests(), [], `the panel only ever talked to ${panelOrigin}`);
  });
});
