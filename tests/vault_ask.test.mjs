// An entry the person marked "ask me each time", in the browser started as
// a person starts it (the panel's window open): an agent's fill waits for
// the person's yes in the window's bar, naming the agent, the entry, the
// field and the site; the person's click on Allow once lets that one fill
// through (the site takes the password), and the next use asks again; no
// answer refuses it when its time is up, and the bar goes; an agent that
// leaves takes its question with it; agents cannot answer; each use is in
// the audit.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, callError, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';
import { browsingWindow } from './support/windows.mjs';

const PASSWORD = 'a-password-the-agent-never-sees';

/** A sign-in page that says whether the password it was sent is right. */
function startSite() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        const right = new URLSearchParams(body).get('password') === PASSWORD;
        res.end(`<!doctype html><title>${right ? 'Signed in' : 'Wrong'}</title><h1>${right ? 'Signed in' : 'Wrong'}</h1>`);
      });
      return;
    }
    res.end(`<!doctype html><title>Bank</title><form method="post" action="/">
      <label>Password <input id="password" name="password" type="password"></label>
      <button id="go">Sign in</button></form>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const origin = `http://127.0.0.1:${server.address().port}`;
    resolve({ origin, close: () => server.close() });
  }));
}

describe('a vault entry that asks the person each time', { timeout: 300_000 }, () => {
  let browser;
  let site;
  let mcp;
  let panel;
  const test = (name, fn) => it(name, { timeout: 90_000 }, withBrowserLog(() => browser, fn));
  const xdo = (...args) => execFileSync('xdotool', args, { env: { ...process.env, ...browser.x11Env() } }).toString().trim();
  const layout = () => agentCall(panel, 'window_layout');
  const fill = (client, extra = {}) => callJson(client, 'fill', { selector: '#password', secret: 'bank', field: 'password', timeout: 60_000, ...extra });
  const barShows = () => waitFor(async () => (await layout()).vault_bar, 'the bar asking for the person\'s yes');
  const barGone = () => waitFor(async () => (await layout()).vault_bar === null, 'the bar to go');

  /** The person's click on one of the window's buttons, through the X server. */
  async function personClicks(rect) {
    const id = await waitFor(() => browsingWindow(xdo), 'the browsing window');
    xdo('windowfocus', '--sync', id);
    xdo('mousemove', '--window', id, String(rect.x + Math.floor(rect.width / 2)), String(rect.y + Math.floor(rect.height / 2)));
    xdo('click', '1');
  }

  before(async () => {
    site = await startSite();
    browser = await startBrowser({ baseArgs: ['--headless', '--ephemeral', '--port', '0', '--log-level', 'info'] });
    mcp = await connectMcp(browser, { name: 'asking-agent' });
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    panel = await connectPanel(browser);
    await agentCall(panel, 'vault_create', { password: 'the person\'s vault password' });
    await agentCall(panel, 'vault_put', { name: 'bank', origins: [site.origin], password: PASSWORD, ask_each_time: true });
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await panel?.close();
    await browser?.stop();
    site?.close();
  });

  test('the agent is told the entry asks, and its fill waits for the person\'s Allow in the window', async () => {
    const { entries } = await callJson(mcp, 'secrets_list');
    assert.deepEqual(entries, [{ name: 'bank', origins: [site.origin], fields: ['password'], ask_each_time: true }]);
    await callJson(mcp, 'open', { url: `${site.origin}/` });
    const filled = fill(mcp);
    const line = await barShows();
    assert.match(line, new RegExp(`^An agent calling itself “asking-agent” asks to fill bank's password from your vault on ${site.origin} \\(tab \\d+\\)$`));
    // The person's panel sees it too, with its id.
    const { waiting } = await agentCall(panel, 'vault_status');
    assert.deepEqual(waiting.map((w) => [w.entry, w.field, w.origin, w.asker]), [['bank', 'password', site.origin, 'asking-agent']]);
    await personClicks((await layout()).vault_allow);
    assert.deepEqual(await filled, { filled: true, secret: 'bank', field: 'password' });
    await barGone();
    await callJson(mcp, 'click', { selector: '#go' });
    await waitFor(async () => (await callJson(mcp, 'get_title')).title === 'Signed in', 'the site to take the password');
  });

  test('the next use asks again; Deny refuses it, and so does no answer in time', async () => {
    await callJson(mcp, 'open', { url: `${site.origin}/` });
    const denied = callError(mcp, 'fill', { selector: '#password', secret: 'bank', field: 'password', timeout: 60_000 }, 'SECRET_REFUSED');
    await barShows();
    await personClicks((await layout()).vault_deny);
    assert.match(await denied, /^asked: the person said no to this use of bank$/);
    await barGone();
    const late = await callError(mcp, 'fill', { selector: '#password', secret: 'bank', field: 'password', timeout: 1500 }, 'SECRET_REFUSED');
    assert.match(late, /^asked: bank asks the person each time, and they did not answer within 1 s/);
    await barGone();
    assert.equal((await callJson(mcp, 'get_value', { selector: '#password' })).value, '', 'nothing was filled');
    const { uses } = await agentCall(panel, 'audit_log', {});
    const refusals = uses.filter((u) => u.action === 'vault_fill' && !u.allowed).map((u) => u.error);
    assert.ok(refusals.some((e) => /^asked: the person said no/.test(e)), JSON.stringify(refusals));
    assert.ok(refusals.some((e) => /^asked: bank asks the person each time/.test(e)), JSON.stringify(refusals));
  });

  test('an agent that leaves takes its question with it; agents cannot answer one', async () => {
    const other = await connectMcp(browser, { name: 'leaving-agent' });
    await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
    await callJson(other, 'tab_new', { url: `${site.origin}/` });
    const pending = fill(other).catch((error) => error);
    await barShows();
    const [{ id }] = (await agentCall(panel, 'vault_status')).waiting;
    await callError(mcp, 'vault_answer', { id, allow: true }, 'UNKNOWN_TOOL');
    await other.close();
    await barGone();
    assert.deepEqual((await agentCall(panel, 'vault_status')).waiting, []);
    await pending;
  });
});
