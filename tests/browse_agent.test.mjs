// Browsing over the /agent WebSocket, as a script would.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NPUB, TEST_NSEC } from './support/mcp.mjs';
import { agentCall, agentError, agentOk, connectAgent } from './support/agent.mjs';
import { findNode, refOf } from './support/snapshot.mjs';
import { assertPngBase64 } from './support/png.mjs';

describe('browsing over /agent', { timeout: 300_000 }, () => {
  let browser;
  let fixtures;
  let agent;
  const test = (name, fn, opts = {}) => it(name, { timeout: 60_000, ...opts }, withBrowserLog(() => browser, fn));

  const call = (tool, params = {}) => agentCall(agent, tool, params);
  const snapshot = async () => {
    const r = await call('snapshot', { interactive: true });
    assert.equal(typeof r.text, 'string', `snapshot result: ${JSON.stringify(r).slice(0, 300)}`);
    return r.text;
  };
  const page = (p) => fixtures.url(p);
  const ensureLoggedIn = async () => {
    if (!(await call('login_status')).logged_in) await call('login', { method: 'local', nsec: TEST_NSEC });
  };

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser();
    agent = await connectAgent(browser);
  }, { timeout: 90_000 });

  after(async () => {
    await agent?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  test('a browser tool before login answers NOT_LOGGED_IN', async () => {
    await call('logout');
    agentError(await agent.call('get_url'), 'NOT_LOGGED_IN', 'get_url');
  });

  test('login with a local nsec reports the npub', async () => {
    const r = await call('login', { method: 'local', nsec: TEST_NSEC });
    assert.equal(r.logged_in, true);
    assert.equal(r.method, 'local');
    assert.equal(r.npub, TEST_NPUB);
    const status = await call('login_status');
    assert.equal(status.npub, TEST_NPUB);
  });

  test('open, snapshot, fill by ref, submit, read the submitted values', async () => {
    await ensureLoggedIn();
    const opened = await call('open', { url: page('/form.html') });
    assert.deepEqual(opened, { url: page('/form.html'), title: 'Sign up' });

    const snap = await snapshot();
    assert.ok(snap.startsWith(`url: ${page('/form.html')}\ntitle: Sign up\n`), `snapshot head:\n${snap.slice(0, 300)}`);
    const name = refOf(snap, 'textbox', 'Name');
    const email = refOf(snap, 'textbox', 'Email');
    const country = refOf(snap, 'combobox', 'Country');
    const agree = refOf(snap, 'checkbox', 'I agree');
    const submit = refOf(snap, 'button', 'Create account');

    assert.deepEqual(await call('fill', { ref: name, value: 'Ada Lovelace' }), { value: 'Ada Lovelace' });
    assert.deepEqual(await call('fill', { ref: email, value: 'ada@example.org' }), { value: 'ada@example.org' });
    assert.deepEqual(await call('fill', { ref: country, value: 'Japan' }), { value: 'Japan' });
    await call('click', { ref: agree });
    assert.ok(findNode(await snapshot(), 'checkbox', 'I agree').flags.checked, 'checkbox not checked');

    const clicked = await call('click', { ref: submit });
    assert.equal(clicked.navigated, true, `click: ${JSON.stringify(clicked)}`);
    assert.ok(clicked.url.includes('/submit'), `url: ${clicked.url}`);
    assert.equal(clicked.title, 'Submitted');

    const got = async (field) => {
      const r = await call('get_text', { selector: `#got-${field}` });
      assert.equal(typeof r.text, 'string', `get_text result: ${JSON.stringify(r)}`);
      return r.text.trim();
    };
    assert.equal(await got('name'), 'Ada Lovelace');
    assert.equal(await got('email'), 'ada@example.org');
    assert.equal(await got('country'), 'Japan');
    assert.equal(await got('agree'), 'yes');
  });

  test('screenshot returns a PNG', async () => {
    await ensureLoggedIn();
    await call('open', { url: page('/form.html') });
    const r = await call('screenshot');
    assert.equal(r.mimeType, 'image/png');
    const { width, height } = assertPngBase64(r.data, 'screenshot');
    assert.ok(width >= 200 && height >= 200, `screenshot is ${width}x${height}`);
  });

  test('several requests in flight: every reply carries its id', async () => {
    await ensureLoggedIn();
    await call('open', { url: page('/links.html') });
    const ids = [101, 102, 103, 104, 105];
    const replies = await Promise.all(ids.map((id) => agent.call('get_url', {}, { id })));
    assert.deepEqual(replies.map((r) => r.id), ids);
    for (const r of replies) assert.deepEqual(agentOk(r, `get_url #${r.id}`), { url: page('/links.html') });
  });

  test('an unknown tool answers UNKNOWN_TOOL', async () => {
    const r = await agent.call('no_such_tool', {});
    const message = agentError(r, 'UNKNOWN_TOOL', 'no_such_tool');
    assert.match(message, /no_such_tool/);
  });

  test('bad params answer INVALID_PARAMS', async () => {
    await ensureLoggedIn();
    agentError(await agent.call('open', {}), 'INVALID_PARAMS', 'open without url');
  });

  test('a non-JSON message gets an error reply and the connection keeps working', async () => {
    agent.sendRaw('this is not json');
    const reply = await agent.nextUnmatched();
    assert.equal(reply.id, null, `reply: ${JSON.stringify(reply)}`);
    assert.equal(reply.ok, false);
    assert.equal(reply.error?.code, 'INVALID_PARAMS', `reply: ${JSON.stringify(reply)}`);
    const status = await call('login_status');
    assert.equal(typeof status.logged_in, 'boolean');
  });

  test('a second connection with the Authorization header is served beside the first', async () => {
    const other = await connectAgent(browser);
    try {
      const status = agentOk(await other.call('login_status'), 'login_status');
      assert.equal(typeof status.logged_in, 'boolean');
    } finally {
      await other.close();
    }
  });
});
