// Trusted input, per-session tabs, hidden tabs that keep working, and MCP
// session expiry: what an assistant relies on without thinking about it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { connectAgent, agentCall } from './support/agent.mjs';
import { callError, callJson, callText, connectMcp, mcpPost, openSession, rpc } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';
import { assertPngBase64 } from './support/png.mjs';
import { waitFor } from './support/wait.mjs';

describe('input, sessions and tabs', { timeout: 300_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  const test = (name, fn, opts = {}) => it(name, { timeout: 60_000, ...opts }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const page = (p) => fixtures.url(p);
  const eventLog = async () => (await callText(mcp, 'get_text', { selector: '#log' })).split('\n').filter(Boolean);

  let session;
  before(async () => {
    session = await startLoggedIn();
    ({ fixtures, browser, mcp } = session);
  }, { timeout: 90_000 });

  after(async () => { await session?.stop(); });

  test('click delivers a trusted mouse click', async () => {
    await call('open', { url: page('trusted.html') });
    const snap = await callText(mcp, 'snapshot');
    await call('click', { ref: refOf(snap, 'button', 'Press me') });
    const log = await eventLog();
    for (const type of ['mousedown', 'mouseup', 'click']) {
      assert.ok(log.includes(`${type} button trusted=true`), `no trusted ${type} in ${JSON.stringify(log)}`);
    }
  });

  test('type sends trusted key events that put text in the field', async () => {
    await call('open', { url: page('trusted.html') });
    const typed = await call('type', { selector: '#field', value: 'Hé!' });
    assert.equal(typed.value, 'Hé!');
    const log = await eventLog();
    assert.ok(log.includes('keydown field trusted=true key=H'), JSON.stringify(log));
    assert.ok(log.includes('input field trusted=true'), JSON.stringify(log));
    assert.ok(!log.some((l) => l.includes('trusted=false')), `untrusted events: ${JSON.stringify(log)}`);
  });

  test('fill enters the value as trusted input, replacing what was there', async () => {
    await call('open', { url: page('trusted.html') });
    await call('type', { selector: '#field', value: 'old' });
    const filled = await call('fill', { selector: '#field', value: 'new value' });
    assert.equal(filled.value, 'new value');
    const log = await eventLog();
    assert.ok(log.includes('input field trusted=true'), JSON.stringify(log));
  });

  test('press sends a trusted key to the focused element', async () => {
    await call('open', { url: page('trusted.html') });
    await call('focus', { selector: '#field' });
    await call('press', { key: 'ArrowLeft' });
    const log = await eventLog();
    assert.ok(log.includes('keydown field trusted=true key=ArrowLeft'), JSON.stringify(log));
  });

  test('each MCP session and /agent connection keeps its own current tab', async () => {
    await call('open', { url: page('form.html') });
    const other = await connectMcp(browser, { name: 'second-client' });
    const agent = await connectAgent(browser);
    try {
      // The second session moves to a new tab of its own...
      const created = await callJson(other, 'tab_new', { url: page('trusted.html') });
      assert.equal(created.title, 'Trusted input');
      // ...the first still acts on its tab, although the new one is in front.
      const mine = await call('get_url');
      assert.match(mine.url, /form\.html$/);
      assert.match((await callJson(other, 'get_url')).url, /trusted\.html$/);
      // The /agent connection starts on the tab in front and keeps it.
      const agentUrl = (await agentCall(agent, 'get_url')).url;
      assert.match(agentUrl, /trusted\.html$/);
      await call('tab_switch', { index: 0 });
      assert.match((await agentCall(agent, 'get_url')).url, /trusted\.html$/, 'another session switching must not move this one');
      const list = await call('tab_list');
      assert.equal(list.tabs.filter((t) => t.current).length, 1);
      assert.equal(list.tabs.find((t) => t.current).index, 0);
    } finally {
      await callJson(other, 'tab_close').catch(() => {});
      await other.close().catch(() => {});
      agent.close();
    }
  });

  test('a key one agent holds down in its tab does not reach another agent\'s tab', async () => {
    await call('open', { url: page('trusted.html') });
    const other = await connectMcp(browser, { name: 'second-hands' });
    try {
      await callJson(other, 'tab_new', { url: page('trusted.html') });
      assert.deepEqual((await call('keydown', { key: 'Shift' })).held, ['Shift']);
      // The other agent types in its own tab: no Shift there.
      assert.equal((await callJson(other, 'type', { selector: '#field', value: 'ab' })).value, 'ab');
      // The first agent's Shift still holds in its tab.
      assert.equal((await call('type', { selector: '#field', value: 'ab' })).value, 'AB');
      assert.deepEqual((await call('keyup', { key: 'Shift' })).held, []);
      assert.equal((await call('type', { selector: '#field', value: 'c' })).value, 'ABc');
    } finally {
      await call('keyup', { key: 'Shift' }).catch(() => {});
      await callJson(other, 'tab_close').catch(() => {});
      await other.close().catch(() => {});
    }
  });

  // Regression: agents clicking and typing at once in tabs of one window
  // took the front from each other between showing their tab and sending
  // its input, so clicks and keys went to a tab behind, or timed out.
  test('agents clicking and typing at once in tabs of one window each reach only their own tab', async () => {
    const AGENTS = 6;
    const ROUNDS = 4;
    const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => connectMcp(browser, { name: `side-by-side-${i}` })));
    try {
      for (const [i, agent] of agents.entries()) {
        await callJson(agent, 'tab_new', { url: `${page('trusted.html')}?agent=${i}` });
      }
      await Promise.all(agents.map(async (agent, i) => {
        for (let round = 0; round < ROUNDS; round++) {
          await callJson(agent, 'click', { selector: '#button' });
          await callJson(agent, 'type', { selector: '#field', value: `${i}` });
        }
      }));
      for (const [i, agent] of agents.entries()) {
        assert.match((await callJson(agent, 'get_url')).url, new RegExp(`agent=${i}$`));
        assert.equal((await callJson(agent, 'get_value', { selector: '#field' })).value, `${i}`.repeat(ROUNDS), `agent ${i}'s keys, all in its own field`);
        const log = (await callText(agent, 'get_text', { selector: '#log' })).split('\n');
        assert.equal(log.filter((l) => l === 'click button trusted=true').length, ROUNDS, `agent ${i}'s clicks: ${JSON.stringify(log)}`);
      }
    } finally {
      await Promise.all(agents.map(async (agent) => {
        await callJson(agent, 'tab_close').catch(() => {});
        await agent.close().catch(() => {});
      }));
    }
  }, { timeout: 120_000 });

  test('a tab in the background keeps answering scripts, snapshots and screenshots', async () => {
    await call('open', { url: page('form.html') });
    const other = await connectMcp(browser, { name: 'front-taker' });
    try {
      await callJson(other, 'tab_new', { url: page('trusted.html') });
      const tabs = (await call('tab_list')).tabs;
      assert.equal(tabs.find((t) => t.current).front, false, 'our tab should be in the background now');
      assert.equal((await call('eval', { script: 'document.title' })).value, 'Sign up');
      const snap = await callText(mcp, 'snapshot');
      assert.match(snap, /e\d+ button "Create account"/);
      const shot = await mcp.callTool('screenshot', {});
      assert.equal(shot.content[0].type, 'image');
      assertPngBase64(shot.content[0].data, 'background tab screenshot');
    } finally {
      await callJson(other, 'tab_close').catch(() => {});
      await other.close().catch(() => {});
    }
  });

  test('a page that calls window.open gets a new tab that knows its opener', async () => {
    await call('open', { url: page('trusted.html') });
    const before = (await call('tab_list')).tabs.length;
    await call('eval', { script: "document.getElementById('button').onclick = () => { window.open('form.html'); }" });
    const clicked = await call('click', { selector: '#button' });
    assert.equal(clicked.new_tabs.length, 1, JSON.stringify(clicked));
    assert.match(clicked.new_tabs[0].url, /form\.html$/);
    const list = (await call('tab_list')).tabs;
    assert.equal(list.length, before + 1, JSON.stringify(list));
    await call('tab_switch', { index: clicked.new_tabs[0].index });
    await call('wait_for', { selector: '#name', timeout: 10_000 });
    assert.equal((await call('eval', { script: 'window.opener !== null' })).value, true);
    await call('tab_close');
  });

  test('a popup that closes itself ends the call on it with NO_TAB, never a retry in the opener', async () => {
    // A tab of its own: its refs start at e1, as the popup's do.
    const tabsBefore = (await call('tab_list')).tabs.length;
    await call('tab_new', { url: page('oauth-opener.html') });
    const opener = await callText(mcp, 'snapshot');
    const signIn = refOf(opener, 'button', 'Sign in with Provider');
    const opened = await call('click', { ref: signIn });
    assert.equal(opened.new_tabs.length, 1, JSON.stringify(opened));
    await call('tab_switch', { index: opened.new_tabs[0].index });
    await call('wait_for', { selector: '#authorize', timeout: 10_000 });
    const popup = await callText(mcp, 'snapshot');
    const authorize = refOf(popup, 'button', 'Authorize');
    // The same ref names the opener's Sign in: a click repeated there would open a second popup.
    assert.equal(authorize, signIn);
    // It answers on the popup, still open then: nothing changed that the agent did not know.
    const clicked = await call('click', { ref: authorize });
    assert.deepEqual(clicked, { navigated: false, clicked: true });
    // Only the opener shows the sign-in: a wait repeated there would succeed.
    const message = await callError(mcp, 'wait_for_text', { text: 'Sign-in: authorized', timeout: 10_000 }, 'NO_TAB');
    assert.match(message, /closed/);
    const tabs = (await call('tab_list')).tabs;
    assert.equal(tabs.length, tabsBefore + 1, JSON.stringify(tabs));
    // The next call acts on the tab in front: the opener, told of the sign-in, once.
    const current = tabs.find((t) => t.current);
    assert.match(current.url, /oauth-opener\.html$/, JSON.stringify(tabs));
    assert.equal((await callText(mcp, 'get_text', { selector: '#result' })).trim(), 'authorized');
    assert.equal((await callText(mcp, 'get_text', { selector: '#opened' })).trim(), '1');
    await call('tab_close');
  });
});

describe('MCP session expiry', { timeout: 120_000 }, () => {
  let browser;
  before(async () => { browser = await startBrowser({ args: ['--session-idle', '1'] }); }, { timeout: 90_000 });
  after(async () => { await browser?.stop(); });

  it('an idle session expires and then gets 404', withBrowserLog(() => browser, async () => {
    const session = await openSession(browser);
    const alive = await mcpPost(browser, rpc('ping'), { sessionId: session.sessionId });
    assert.equal(alive.status, 200);
    const idleSince = Date.now();
    // Polling the session would keep it alive: the browser's log says when it ends.
    await waitFor(() => browser.stderr().split('\n')
      .some((l) => l.includes('MCP session expired') && l.includes(session.sessionId)),
    'the log to say the idle session expired', 10_000);
    const idle = Date.now() - idleSince;
    assert.ok(idle >= 1000, `the session expired after ${idle} ms idle, before its idle second`);
    const gone = await mcpPost(browser, rpc('ping'), { sessionId: session.sessionId });
    assert.equal(gone.status, 404);
  }));
});
