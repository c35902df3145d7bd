// Whatever listens on the browser's port once it is gone gets nothing: the
// panel page (in Chromium) and the `sovereign` command ask the server to
// prove it holds the panel key or the agents' token before they send
// anything made from it, and never send the secret itself. A program that
// binds the port after the browser stopped sees a hello with a random
// nonce, no key, no token, no proof it could replay; the page stops and
// says so. When the browser comes back as another run, the page stops
// until the person connects again.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { browserBinary, startBrowser, withBrowserLog } from './support/browser.mjs';
import { run } from './support/run.mjs';
import { waitFor } from './support/wait.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const CLI = path.join(path.dirname(browserBinary()), 'sovereign');

/**
 * A program that took the browser's port: it keeps every request's head and
 * refuses every WebSocket. `hello`: answers /api/hello with a made-up proof,
 * as a program imitating the browser would.
 */
async function startListener(port) {
  const heads = [];
  const server = http.createServer((req, res) => {
    heads.push(`${req.method} ${req.url}\n${JSON.stringify(req.rawHeaders)}`);
    if (req.url.startsWith('/api/hello')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ instance: 'a'.repeat(32), nonce: 'b'.repeat(32), proof: randomBytes(32).toString('hex') }));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  server.on('upgrade', (req, socket) => {
    heads.push(`UPGRADE ${req.url}\n${JSON.stringify(req.rawHeaders)}`);
    socket.destroy();
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    heads,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('the server proves itself first', { timeout: 240_000 }, () => {
  let dir;
  let browser;
  let chrome;
  let page;
  let port;
  let key;
  let token;
  const start = async () => {
    browser = await startBrowser({
      baseArgs: ['--headless', '--no-panel', '--port', String(port ?? 0), '--profile', path.join(dir, 'profile')],
      env: { SOVEREIGN_TOKEN: token },
    });
    port = browser.port;
    key = browser.panelKey;
  };
  const state = () => page.locator('#connection').getAttribute('data-state');
  const secretsIn = (heads) => {
    const hex = Buffer.from(key).toString('hex');
    return heads.filter((h) => h.includes(key) || h.includes(hex) || h.includes(token) || /proof\.|Proof |Bearer /.test(h));
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-proof-'));
    token = randomBytes(32).toString('hex');
    await start();
    chrome = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    page = await (await chrome.newContext()).newPage();
  }, { timeout: 90_000 });

  after(async () => {
    await chrome?.close().catch(() => {});
    await browser?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the panel page never sends the key to what takes the port after the browser stops', { timeout: 90_000 }, withBrowserLog(() => browser, async () => {
    await page.goto(browser.panelUrl, { waitUntil: 'load' });
    await page.locator('#connection[data-state="open"]').waitFor({ timeout: 15_000 });
    await browser.stop();

    const listener = await startListener(port);
    try {
      await waitFor(async () => (await state()) === 'stopped', 'the page to stop when what answers cannot prove the key', 30_000);
      assert.match(await page.locator('#token-banner').innerText(), /did not prove it holds this panel key, so nothing of the key was sent/);
      assert.ok(listener.heads.some((h) => h.startsWith('GET /api/hello?for=panel&nonce=')), listener.heads.join('\n'));
      assert.deepEqual(listener.heads.filter((h) => h.startsWith('UPGRADE')), [], 'no WebSocket was even tried');
      assert.deepEqual(secretsIn(listener.heads), [], 'nothing of the key reached the listener');
    } finally {
      await listener.close();
    }
  }));

  it('the sovereign command never sends the token to what takes the port', { timeout: 60_000 }, async () => {
    const listener = await startListener(port);
    try {
      const out = await run(CLI, ['get_url'], { env: { SOVEREIGN_ADDR: `127.0.0.1:${port}`, SOVEREIGN_TOKEN: token } });
      assert.equal(out.code, 4, out.stdout + out.stderr);
      assert.match(out.stderr, /did not prove it is the browser holding this token .*so the token was not sent/);
      assert.ok(listener.heads.some((h) => h.startsWith('GET /api/hello?for=agents&nonce=')), listener.heads.join('\n'));
      assert.deepEqual(secretsIn(listener.heads), [], 'nothing of the token reached the listener');
    } finally {
      await listener.close();
    }
  });

  it('the browser back as another run: the page stops until the person connects again; the command works', { timeout: 90_000 }, withBrowserLog(() => browser, async () => {
    await start();
    // The page stopped for the listener: the person connects again.
    await page.locator('#connection-retry').click();
    await page.locator('#connection[data-state="open"]').waitFor({ timeout: 15_000 });
    const out = await run(CLI, ['login_status'], { env: { SOVEREIGN_ADDR: `127.0.0.1:${port}`, SOVEREIGN_TOKEN: token } });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /logged_in: false/);

    // Another run on the same port, with the same key: proven, but not the run the page met.
    await browser.stop();
    await start();
    await waitFor(async () => (await state()) === 'stopped', 'the page to stop for another run of the browser', 30_000);
    assert.match(await page.locator('#token-banner').innerText(), /a new run/);
    await page.locator('#connection-retry').click();
    await page.locator('#connection[data-state="open"]').waitFor({ timeout: 15_000 });
  }));
});
