// Routes in the person's own window, with the browser started as a person
// starts it (its panel window open): agents route it only with the
// person's yes in the panel, and any context of their own without it; the
// window's bar and the panel list the routes, and the person removes them
// with a click in the window; routes answer nothing while the agents are
// paused or a request for the person waits; the proxy stands between the
// window and the sites only while a route does.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, callError, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('routes in the person\'s window', { timeout: 300_000 }, () => {
  let browser;
  let fixtures;
  let mcp; // an agent in the person's context
  let other; // an agent with a context of its own
  let panel;
  let state = null; // the newest state pushed to the panel
  const test = (name, fn) => it(name, { timeout: 90_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const xdo = (...args) => execFileSync('xdotool', args, { env: { ...process.env, ...browser.x11Env() } }).toString().trim();
  /** The panel's newest state, once `check` holds for it. */
  const pushed = (check, what) => waitFor(async () => {
    while (panel.unmatched.length) {
      const message = panel.unmatched.shift();
      if (message.event === 'state') state = message.data;
    }
    if (state && check(state)) return state;
    await panel.nextUnmatched({ timeout: 1000 }).then((m) => { if (m.event === 'state') state = m.data; }, () => {});
    return false;
  }, what);
  /** What the page's fetch of `/net/json` answers, asked by the person's panel (never held). */
  let tab; // the person's tab the agent works in
  const fetched = async () => {
    const reply = await agentCall(panel, 'eval', { tab, script: "fetch('/net/json?' + Math.random()).then((r) => r.text())" });
    return JSON.parse(reply.value);
  };
  const routeJson = () => call('network_route', { url: '**/net/json*', action: 'fulfill', json: { routed: true } });

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser({ baseArgs: ['--headless', '--ephemeral', '--port', '0', '--log-level', 'info'] });
    mcp = await connectMcp(browser, { name: 'person-context-agent' });
    other = await connectMcp(browser, { name: 'own-context-agent' });
    await call('login', { method: 'local', nsec: TEST_NSEC });
    panel = await connectPanel(browser);
    await call('open', { url: fixtures.url('form.html') });
    tab = (await call('tab_list')).tabs.find((t) => t.current).id;
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await other?.close().catch(() => {});
    await panel?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  test('an agent routes the person\'s window only with their yes; the window and the panel show it; the person removes it in the window', async () => {
    const refused = await callError(mcp, 'network_route', { url: '**/net/json*', action: 'fulfill', json: { routed: true } }, 'NOT_ALLOWED');
    assert.match(refused, /need the person's yes/);
    // From a context of its own, naming the person's: refused too; its own context is its to route.
    await callJson(other, 'context_new', { name: 'mine' });
    await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
    await callError(other, 'network_route', { url: '**', action: 'abort', context: 'default' }, 'NOT_ALLOWED');
    const own = (await callJson(other, 'network_route', { url: '**/own*', action: 'abort' })).route;
    assert.equal(typeof own.id, 'number');
    assert.equal((await fetched()).routed, undefined, 'the site answered');

    // The person says yes in the panel.
    await agentCall(panel, 'network_routes_allow', { allowed: true });
    await routeJson();
    assert.deepEqual(await fetched(), { routed: true });
    await pushed((s) => s.routes.list.some((r) => r.context === 'default' && r.url === '**/net/json*')
      && s.routes.proxied.includes('default'), 'the route in the panel');
    const layout = await waitFor(async () => {
      const shown = await agentCall(panel, 'window_layout');
      return shown.routes_bar && shown;
    }, 'the routes bar in the person\'s window');
    assert.match(layout.routes_bar, /^A route by agents answer this window's requests: \*\*\/net\/json\* \(fulfill\)$/);

    // The person clicks Remove routes in their window.
    const id = xdo('search', '--onlyvisible', '--name', 'Sovereign Browser').split('\n')
      .find((w) => !xdo('getwindowname', w).endsWith('Control panel'));
    const button = layout.routes_remove;
    // The agent's own context has a window of its own, over the person's (no window manager here).
    xdo('windowraise', id);
    xdo('windowfocus', '--sync', id);
    xdo('mousemove', '--window', id, String(button.x + Math.floor(button.width / 2)), String(button.y + Math.floor(button.height / 2)));
    xdo('click', '1');
    await pushed((s) => !s.routes.list.some((r) => r.context === 'default') && !s.routes.proxied.includes('default'),
      'the person\'s window without routes, and straight to the sites');
    assert.equal((await fetched()).routed, undefined, 'the site answers again');
    assert.equal((await agentCall(panel, 'window_layout')).routes_bar, null);
    assert.ok(state.routes.list.some((r) => r.context === 'mine'), 'the agent\'s own context keeps its route');

    // The person's no: routes there are refused again.
    await agentCall(panel, 'network_routes_allow', { allowed: false });
    await callError(mcp, 'network_route', { url: '**', action: 'abort' }, 'NOT_ALLOWED');
  });

  test('routes answer nothing while the agents are paused or a request for the person waits; the proxy goes with the last route', async () => {
    await agentCall(panel, 'network_routes_allow', { allowed: true });
    await routeJson();
    assert.deepEqual(await fetched(), { routed: true });

    await agentCall(panel, 'agents_pause', { paused: true });
    try {
      assert.equal((await fetched()).routed, undefined, 'paused: the site answers');
    } finally {
      await agentCall(panel, 'agents_pause', { paused: false });
    }
    assert.deepEqual(await fetched(), { routed: true });

    const asked = call('ask_person', { message: 'Look at this page', timeout: 60_000 });
    const ask = await pushed((s) => s.asks.some((a) => a.message === 'Look at this page'), 'the request in the panel');
    assert.equal((await fetched()).routed, undefined, 'asked: the site answers');
    const id = ask.asks.find((a) => a.message === 'Look at this page').id;
    await agentCall(panel, 'ask_answer', { id, answer: 'done' });
    assert.equal((await asked).answer, 'done');
    assert.deepEqual(await fetched(), { routed: true });

    await call('network_unroute', { all: true });
    await pushed((s) => !s.routes.proxied.includes('default'), 'the window\'s requests straight to the sites');
    assert.equal((await fetched()).routed, undefined);
  });
});
