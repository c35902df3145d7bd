// The same browse scenario through the official SDKs of both protocol
// eras on one /mcp: the Python SDK 2.x in its default mode (it discovers
// and speaks 2026-07-28 without a session) and pinned to 2026-07-28, and
// the TypeScript SDK in a 2025-11-25 session. Each fills a form in one tab,
// opens another and reads the first one's field back. Before that, the
// Python SDK's call before login asks its user (an input_required result)
// to log in in the panel, and goes on once the person did.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import readline from 'node:readline';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { connectPanel } from './support/agent.mjs';
import { LISTED_SIZE, LATEST_PROTOCOL, MODERN_PROTOCOL, TEST_NSEC, callJson, callText, connectMcp } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';

const PYTHON_PACKAGES = path.join(REPO_ROOT, 'target/python-tests');
const PYTHON_CLIENT = path.join(REPO_ROOT, 'tests/support/mcp_python_client.py');

/** Runs the Python SDK's browse scenario; resolves with what it printed. */
function pythonScenario(browser, mode, page) {
  return new Promise((resolve, reject) => {
    execFile('python3', [PYTHON_CLIENT, browser.mcpUrl, browser.token, mode, 'browse', page], {
      env: { ...process.env, PYTHONPATH: PYTHON_PACKAGES },
      timeout: 90_000,
    }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`the Python client (${mode}) failed: ${error.message}\n${stderr}`));
        return;
      }
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

/**
 * Starts the Python SDK's login-wait scenario: `next()` gives each JSON line
 * it prints, `answer(line)` is what its user says when asked.
 */
function pythonLoginWait(browser) {
  const child = spawn('python3', [PYTHON_CLIENT, browser.mcpUrl, browser.token, 'auto', 'login-wait'], {
    env: { ...process.env, PYTHONPATH: PYTHON_PACKAGES },
  });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const timer = setTimeout(() => child.kill(), 60_000);
  child.on('exit', () => clearTimeout(timer));
  return {
    async next() {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the Python client ended early:\n${stderr}`);
      return JSON.parse(value);
    },
    answer: (line) => child.stdin.write(`${line}\n`),
  };
}

describe('one /mcp, both protocol eras, the official SDKs', { timeout: 300_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  const test = (name, fn) => it(name, { timeout: 120_000 }, withBrowserLog(() => browser, fn));

  before(async () => {
    assert.ok(existsSync(PYTHON_PACKAGES),
      `the MCP Python SDK is not installed in ${PYTHON_PACKAGES}: run scripts/setup.sh --with-test-deps`);
    fixtures = await startFixtureServer();
    browser = await startBrowser();
    mcp = await connectMcp(browser, { name: 'typescript-sdk-test' });
  }, { timeout: 90_000 });
  after(async () => {
    await mcp?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  test('before login, the Python SDK\'s user is asked to log in in the panel; the call goes on once they did', async () => {
    const declined = pythonLoginWait(browser);
    const asked = await declined.next();
    assert.match(asked.asked, /control panel/);
    declined.answer('decline');
    const refused = await declined.next();
    assert.equal(refused.is_error, true);
    assert.equal(refused.result.error.code, 'NOT_LOGGED_IN');

    const accepted = pythonLoginWait(browser);
    await accepted.next();
    const panel = await connectPanel(browser);
    try {
      const login = await panel.call('login', { method: 'local', nsec: TEST_NSEC });
      assert.equal(login.ok, true, `the person logs in in the panel: ${JSON.stringify(login)}`);
    } finally {
      await panel.close();
    }
    accepted.answer('accept');
    const done = await accepted.next();
    assert.equal(done.is_error, false, JSON.stringify(done));
    assert.equal(typeof done.result.url, 'string');
  });

  test('an accept with nobody logged in logs nobody in', async () => {
    await callJson(mcp, 'logout');
    const early = pythonLoginWait(browser);
    await early.next();
    early.answer('accept');
    const result = await early.next();
    assert.equal(result.is_error, true);
    assert.equal(result.result.error.code, 'NOT_LOGGED_IN');
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
  });

  for (const mode of ['auto', MODERN_PROTOCOL]) {
    test(`the Python SDK (mode ${mode}) browses two tabs by their ids, without a session`, async () => {
      const page = fixtures.url('/form.html');
      const seen = await pythonScenario(browser, mode, page);
      assert.equal(seen.protocol, MODERN_PROTOCOL, 'the stateless revision was chosen');
      assert.equal(seen.tools, LISTED_SIZE);
      assert.ok(seen.click_params.includes('tab'), `click's parameters: ${seen.click_params}`);
      assert.notEqual(seen.first_tab, seen.second_tab);
      assert.equal(seen.first_value, 'Ada', 'the field filled in the first tab, read back by its id');
      assert.equal(seen.first_url, page);
      assert.equal(seen.front_url, `${page}?second`, 'without a tab id: the tab in front');
      assert.equal(seen.closed_tab_error, 'NO_TAB');
    });
  }

  test('the TypeScript SDK (2025-11-25) browses the same pages in its session', async () => {
    assert.equal(mcp.transport.protocolVersion, LATEST_PROTOCOL);
    const page = fixtures.url('/form.html');
    await callJson(mcp, 'open', { url: page });
    const name = refOf(await callText(mcp, 'snapshot'), 'textbox', 'Name');
    await callJson(mcp, 'fill', { ref: name, value: 'Grace' });
    const first = (await callJson(mcp, 'tab_list')).tabs.find((t) => t.current);
    const second = await callJson(mcp, 'tab_new', { url: `${page}?second` });
    assert.equal(second.tab, undefined, 'session results are as they always were');
    assert.equal((await callJson(mcp, 'get_url')).url, `${page}?second`, 'the new tab is the session\'s');
    await callJson(mcp, 'tab_switch', { index: first.index });
    assert.equal((await callJson(mcp, 'get_value', { ref: name })).value, 'Grace');
    await callJson(mcp, 'tab_close', { index: (await callJson(mcp, 'tab_list')).tabs.find((t) => !t.current).index });
  });

  test('the panel lists the Python client by its clientInfo, as stateless', async () => {
    const panel = await connectPanel(browser);
    try {
      for (;;) {
        const push = await panel.nextUnmatched({ timeout: 10_000 });
        if (push.event !== 'state') continue;
        const python = push.data.sessions.filter((s) => s.client?.name === 'python-sdk-test');
        const typescript = push.data.sessions.find((s) => s.client?.name === 'typescript-sdk-test');
        assert.equal(python.length, 1, 'one record for the client, however many requests it sent');
        assert.equal(python[0].stateless, true);
        assert.equal(python[0].protocol_version, MODERN_PROTOCOL);
        assert.equal(python[0].calls, 20, 'nine tool calls in each browse run, one in each login wait that went on');
        assert.equal(typescript.stateless, false);
        assert.equal(typescript.protocol_version, LATEST_PROTOCOL);
        return;
      }
    } finally {
      await panel.close();
    }
  });
});
