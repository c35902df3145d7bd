// ask_person through the agent's client too: a 2025-11-25 session whose
// client declared elicitation is asked there while the window's bar and
// the panel wait. URL mode links to the panel at the request (no key, no
// token); form mode asks Done or Can't and a note. Whichever answers
// first wins, and the client's elicitation is withdrawn when the request
// ends elsewhere. Clients without elicitation are asked nothing. The
// clients are the official TypeScript and Python SDKs.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const PYTHON_PACKAGES = path.join(REPO_ROOT, 'target/python-tests');
const PYTHON_CLIENT = path.join(REPO_ROOT, 'tests/support/mcp_python_client.py');

/**
 * A client of the official TypeScript SDK that declares `elicitation` and
 * lets the test answer each request as its user would: `next()` gives the
 * next one ({ params, requestId, signal, answer(result) }).
 */
async function elicitingClient(browser, name, elicitation) {
  const mcp = await connectMcp(browser, { name, capabilities: { elicitation } });
  const asked = [];
  const waiters = [];
  mcp.client.setRequestHandler(ElicitRequestSchema, (request, extra) => new Promise((answer) => {
    const one = { params: request.params, requestId: extra.requestId, signal: extra.signal, answer };
    const waiter = waiters.shift();
    if (waiter) waiter(one); else asked.push(one);
  }));
  mcp.completed = [];
  mcp.client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    mcp.completed.push(n.params.elicitationId);
  });
  mcp.next = () => (asked.length ? Promise.resolve(asked.shift()) : new Promise((r) => waiters.push(r)));
  return mcp;
}

describe('ask_person through MCP elicitation', { timeout: 300_000 }, () => {
  let session;
  let browser;
  let fixtures;
  let panel; // the person's own connection
  let lastState = null;
  const test = (name, fn, timeout = 60_000) => it(name, { timeout }, withBrowserLog(() => browser, fn));
  /** The window's ask bar as the person's panel reads it (null: none). */
  const bar = async () => (await agentCall(panel, 'window_layout')).ask_bar;
  /** The request with `message`, as the panel's live state shows it. */
  function pushedAsk(message) {
    while (panel.unmatched.length) {
      const pushed = panel.unmatched.shift();
      if (pushed.event === 'state') lastState = pushed.data;
    }
    return lastState?.asks?.find((a) => a.message === message);
  }
  const askOf = (message) => waitFor(() => pushedAsk(message), `the request "${message}" in the panel`);
  /** A tab of the client's own, with a page in it. */
  async function ownTab(mcp) {
    await callJson(mcp, 'tab_new', { url: fixtures.url('form.html') });
    return (await callJson(mcp, 'tab_list')).tabs.find((t) => t.current);
  }

  before(async () => {
    session = await startLoggedIn();
    ({ browser, fixtures } = session);
    panel = await connectPanel(browser);
  }, { timeout: 90_000 });

  after(async () => {
    await panel?.close();
    await session?.stop();
  });

  test('a form-mode client answers Done with a note: the agent gets it and the bar goes', async () => {
    const mcp = await elicitingClient(browser, 'form-client', { form: {} });
    try {
      await ownTab(mcp);
      const asked = callJson(mcp, 'ask_person', { message: 'Solve the CAPTCHA', timeout: 60_000 });
      const form = await mcp.next();
      assert.equal(form.params.mode, 'form');
      assert.match(form.params.message, /^Solve the CAPTCHA/);
      const schema = form.params.requestedSchema;
      assert.deepEqual(Object.keys(schema.properties), ['answer', 'note'], 'Done/Can\'t and a note, nothing more');
      assert.deepEqual(schema.properties.answer.oneOf.map((o) => o.const), ['done', 'cant']);
      assert.equal(schema.properties.note.maxLength, 2000);
      assert.match(await waitFor(bar, 'the bar over the tab'), /Solve the CAPTCHA/, 'the window asks too');
      form.answer({ action: 'accept', content: { answer: 'done', note: 'solved it' } });
      const result = await asked;
      assert.equal(result.answer, 'done');
      assert.equal(result.note, 'solved it');
      await waitFor(async () => (await bar()) === null, 'the bar to go');
      assert.equal(pushedAsk('Solve the CAPTCHA'), undefined, 'the panel no longer shows it');
    } finally {
      await mcp.close();
    }
  });

  test('a URL-mode client gets a link to the panel at the request, with no secret; the person answers in the panel', async () => {
    const mcp = await elicitingClient(browser, 'url-client', { url: {} });
    try {
      await ownTab(mcp);
      const asked = callJson(mcp, 'ask_person', { message: 'Enter the 2FA code', timeout: 60_000 });
      const link = await mcp.next();
      const ask = await askOf('Enter the 2FA code');
      assert.equal(link.params.mode, 'url');
      assert.match(link.params.message, /^Enter the 2FA code/);
      const url = new URL(link.params.url);
      assert.equal(url.origin, new URL(browser.base).origin, 'the browser\'s own address');
      assert.equal(url.hash, `#ask=${ask.id}`, 'opens the panel at the request');
      const sent = JSON.stringify(link.params);
      assert.ok(!sent.includes(browser.panelKey), 'never the panel key');
      assert.ok(!sent.includes(browser.token), 'never the agents\' token');
      assert.equal(url.search, '');
      // The user opened the link: the request still waits for the person.
      link.answer({ action: 'accept' });
      await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'declined', note: 'no phone with me' });
      const result = await asked;
      assert.equal(result.answer, 'declined', 'the panel\'s answer, not the link\'s accept');
      assert.equal(result.note, 'no phone with me');
      await waitFor(() => mcp.completed.includes(link.params.elicitationId), 'notifications/elicitation/complete');
      await waitFor(async () => (await bar()) === null, 'the bar to go');
    } finally {
      await mcp.close();
    }
  });

  test('the person answers in the panel while a form waits: the form is cancelled, and its late answer changes nothing', async () => {
    const mcp = await elicitingClient(browser, 'slow-form-client', {});
    try {
      await ownTab(mcp);
      const first = callJson(mcp, 'ask_person', { message: 'Accept the cookies', timeout: 60_000 });
      const form = await mcp.next();
      assert.equal(form.params.mode, 'form');
      const cancelled = new Promise((resolve) => form.signal.addEventListener('abort', () => resolve(form.signal.reason)));
      const ask = await askOf('Accept the cookies');
      await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'done', note: 'clicked accept' });
      const answered = await first;
      assert.equal(answered.answer, 'done');
      assert.equal(answered.note, 'clicked accept');
      assert.match(String(await cancelled), /ended/, 'notifications/cancelled reached the client');

      // A second request on the same tab; the first form's answer comes late.
      const second = callJson(mcp, 'ask_person', { message: 'Pick the plan', timeout: 60_000 });
      const again = await mcp.next();
      assert.notEqual(again.requestId, form.requestId);
      await mcp.transport.send({
        jsonrpc: '2.0', id: form.requestId, result: { action: 'accept', content: { answer: 'cant', note: 'late' } },
      });
      assert.ok(pushedAsk('Pick the plan') || await askOf('Pick the plan'), 'the second request still waits');
      again.answer({ action: 'accept', content: { answer: 'done', note: 'picked' } });
      const result = await second;
      assert.equal(result.answer, 'done', 'the late answer did not answer the second request');
      assert.equal(result.note, 'picked');
      form.answer({ action: 'cancel' });
    } finally {
      await mcp.close();
    }
  });

  test('the link opens the panel at the request: once the person gives their key, it comes first with its tab\'s address and its tab comes forward', async () => {
    const plain = await connectMcp(browser, { name: 'plain-asker' });
    const mcp = await elicitingClient(browser, 'url-client', { url: {} });
    const chrome = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 60_000,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    try {
      await ownTab(plain);
      const older = callJson(plain, 'ask_person', { message: 'An older request', timeout: 60_000 });
      const olderAsk = await askOf('An older request');
      const tab = await ownTab(mcp);
      const asked = callJson(mcp, 'ask_person', { message: 'Take over here', timeout: 60_000 });
      const link = await mcp.next();
      link.answer({ action: 'accept' });
      const front = async () => (await agentCall(panel, 'window_layout')).tabs.find((t) => t.front).id;
      assert.notEqual(await front(), tab.id, 'the older request keeps its tab in front');

      const page = await (await chrome.newContext()).newPage();
      await page.goto(link.params.url, { waitUntil: 'load' });
      // No key in the link: the person gives theirs, as for any new panel tab.
      await page.locator('#token-banner').waitFor({ state: 'visible' });
      await page.locator('#token-input').fill(browser.panelKey);
      await page.locator('#token-submit').click();
      const shown = page.locator('#asks > li:first-child[data-focused="true"]');
      await shown.waitFor({ timeout: 15_000 });
      assert.equal(await shown.locator('.ask-message').textContent(), 'Take over here');
      assert.match(await shown.locator('.ask-url').textContent(), /form\.html/);
      await waitFor(async () => (await front()) === tab.id, 'the request\'s tab in front');
      await shown.locator('input[name="note"]').fill('done in the panel');
      await shown.locator('button[data-answer="done"]').click();
      const result = await asked;
      assert.equal(result.answer, 'done');
      assert.equal(result.note, 'done in the panel');
      await agentCall(panel, 'ask_answer', { id: olderAsk.id, answer: 'declined' });
      assert.equal((await older).answer, 'declined');
    } finally {
      await chrome.close();
      await plain.close();
      await mcp.close();
    }
  }, 90_000);

  test('a client without elicitation is asked nothing: the bar and the panel answer as before', async () => {
    const mcp = await connectMcp(browser, { name: 'plain-client' });
    const requests = [];
    mcp.client.fallbackRequestHandler = async (request) => {
      requests.push(request.method);
      return {};
    };
    try {
      await ownTab(mcp);
      const asked = callJson(mcp, 'ask_person', { message: 'Read the letter', timeout: 60_000 });
      const ask = await askOf('Read the letter');
      assert.match(await waitFor(bar, 'the bar over the tab'), /Read the letter/);
      await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'done', note: 'read' });
      const result = await asked;
      assert.equal(result.answer, 'done');
      assert.equal(result.note, 'read');
      assert.deepEqual(requests, [], 'no request from the server');
    } finally {
      await mcp.close();
    }
  });

  test('the Python SDK in a 2025-11-25 session answers a form Can\'t with a note: the agent gets it', async () => {
    assert.ok(existsSync(PYTHON_PACKAGES),
      `the MCP Python SDK is not installed in ${PYTHON_PACKAGES}: run scripts/setup.sh --with-test-deps`);
    const lines = await new Promise((resolve, reject) => {
      execFile('python3', [PYTHON_CLIENT, browser.mcpUrl, browser.token, 'legacy', 'ask-form', 'Confirm the payment'], {
        env: { ...process.env, PYTHONPATH: PYTHON_PACKAGES },
        timeout: 90_000,
      }, (error, stdout, stderr) => {
        if (error) reject(new Error(`the Python client failed: ${error.message}\n${stderr}`));
        else resolve(stdout.trim().split('\n').map((line) => JSON.parse(line)));
      });
    });
    const [asked, done] = lines;
    assert.equal(asked.mode, 'form');
    assert.match(asked.asked, /^Confirm the payment/);
    assert.deepEqual(asked.fields, ['answer', 'note']);
    assert.equal(done.protocol, '2025-11-25');
    assert.equal(done.result.answer, 'declined');
    assert.equal(done.result.note, 'no phone at hand');
    await waitFor(async () => (await bar()) === null, 'the bar to go');
  });
});
