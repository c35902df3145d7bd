// The panel in its own window, as a person starts the browser (no
// --no-panel): its page connects back to the server, it keeps nothing in
// the tabs' cookie jar, nothing a tab sends or saves carries the person's
// key, an agent's cookie cannot lock the person out, the window stands
// beside the browser's on the private display, and an agent's real pointer
// never lands on it (or on any window above the page).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { agentCall, connectAgent, connectPanel } from './support/agent.mjs';
import { waitFor } from './support/wait.mjs';
import { TEST_NPUB } from './support/mcp.mjs';

const run = promisify(execFile);

describe('the panel window', { timeout: 240_000 }, () => {
  let browser;
  let fixtures;
  let agent;
  let person;
  let personId; // the test's own panel connection, not the window's
  const logged = (fn) => withBrowserLog(() => browser, fn);

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser({ baseArgs: ['--headless', '--ephemeral', '--port', '0', '--log-level', 'info'] });
    agent = await connectAgent(browser);
    person = await connectPanel(browser);
    for (;;) {
      const pushed = await person.nextUnmatched();
      if (pushed.event === 'state') { personId = pushed.data.you; break; }
    }
    await agentCall(agent, 'login', { method: 'readonly', npub: TEST_NPUB });
  }, { timeout: 90_000 });

  after(async () => {
    await agent?.close();
    await person?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  const xdotool = async (...args) => {
    const env = { ...process.env, ...browser.x11Env() };
    return (await run('xdotool', args, { env })).stdout.trim();
  };
  const geometry = async (id) => {
    const out = await xdotool('getwindowgeometry', '--shell', id);
    return Object.fromEntries(out.split('\n').map((line) => line.split('=')).map(([k, v]) => [k, Number(v)]));
  };
  const windowsNamed = async (pattern) => (await xdotool('search', '--onlyvisible', '--name', pattern).catch(() => '')).split('\n').filter(Boolean);
  const panelWindow = async () => {
    let found = [];
    await waitFor(async () => (found = await windowsNamed('Control panel$')).length === 1, 'the panel window to be mapped');
    return found[0];
  };
  const browserWindow = async () => {
    const panel = await panelWindow();
    const all = await windowsNamed('Sovereign Browser');
    const others = all.filter((id) => id !== panel);
    assert.equal(others.length, 1, `one browser window besides the panel's: ${all}`);
    return others[0];
  };

  /** Waits for a pushed state in which the panel window is connected (other than `not`). */
  function panelWindowConnects({ not = null, timeout = 30_000 } = {}) {
    const ws = new WebSocket(`ws://127.0.0.1:${browser.port}/api/panel`, {
      headers: { Origin: browser.base, Authorization: `Bearer ${browser.panelKey}` },
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { ws.terminate(); reject(new Error('the panel window never connected')); }, timeout);
      ws.on('message', (raw) => {
        const msg = JSON.parse(raw);
        if (msg.event !== 'state') return;
        const others = msg.data.sessions
          .filter((s) => s.transport === 'panel' && ![msg.data.you, personId, not].includes(s.id))
          .map((s) => s.id);
        if (others.length > 0) { clearTimeout(timer); ws.close(); resolve(others); }
      });
      ws.on('error', (e) => { clearTimeout(timer); reject(e); });
    });
  }

  it('opens at start-up and connects', { timeout: 60_000 }, logged(async () => {
    const panels = await panelWindowConnects();
    assert.equal(panels.length, 1, 'exactly one panel window');
  }));

  // Regression: the panel window shared the tabs' cookie jar, and kept the
  // key in a cookie for 127.0.0.1, which every loopback port received:
  // cookies_get showed it, state_save wrote it, and any other local server
  // a tab visited was sent it.
  it('leaves the person\'s key in no cookie, request or state file of the tabs', { timeout: 60_000 }, logged(async () => {
    await panelWindowConnects();
    const key = browser.panelKey;
    for (const params of [{ url: `${browser.base}/` }, { url: `${browser.base}/api/panel` }, { all: true }]) {
      const { cookies } = await agentCall(agent, 'cookies_get', params);
      for (const c of cookies) {
        assert.ok(!String(c.value).includes(key), `cookies_get ${JSON.stringify(params)} shows the panel key in ${c.name}`);
        assert.doesNotMatch(c.name, /^sovereign-panel/, `no panel cookie in the tabs' jar: ${c.name}`);
      }
    }
    // Another server on this machine's loopback, as a tab visits it.
    await agentCall(agent, 'open', { url: fixtures.url('/echo') });
    const echoed = JSON.parse((await agentCall(agent, 'eval', { script: "document.getElementById('echo').textContent" })).value);
    assert.ok(!JSON.stringify(echoed.headers).includes(key), `the other port was sent the key: ${JSON.stringify(echoed.headers)}`);
    const { requests } = await agentCall(agent, 'network_requests', { all: true });
    assert.ok(!JSON.stringify(requests).includes(key), 'no network entry carries the key');
    const saved = await agentCall(agent, 'state_save', { name: 'panel-key-check' });
    assert.ok(!readFileSync(saved.path, 'utf8').includes(key), 'the state file does not hold the key');
  }));

  // Regression: a cookie an agent set on /api/panel was sent first, and the
  // guard read only the first panel cookie: the panel window was refused
  // from then on.
  it('an agent\'s cookies cannot lock the person out of the panel window', { timeout: 90_000 }, logged(async () => {
    const [before] = await panelWindowConnects();
    const name = `sovereign-panel-${browser.port}`;
    for (const path of ['/api/panel', '/']) {
      await agentCall(agent, 'cookies_set', { name, value: 'agent-chosen', domain: '127.0.0.1', path });
    }
    // The person ends the window's connection; its page connects again.
    await agentCall(person, 'session_end', { id: before });
    const after = await panelWindowConnects({ not: before });
    assert.equal(after.length, 1, 'the panel window is connected again');
  }));

  it('stands beside the browser\'s window on the private display, not over it', { timeout: 60_000 }, logged(async () => {
    const main = await geometry(await browserWindow());
    const panel = await geometry(await panelWindow());
    assert.ok(panel.X >= main.X + main.WIDTH || panel.Y >= main.Y + main.HEIGHT,
      `the panel window (${JSON.stringify(panel)}) does not overlap the browser's (${JSON.stringify(main)})`);
  }));

  // Regression: a drag moved the X pointer (XTEST) onto whatever window lay
  // above the page there, the panel's included, and pressed it.
  it('an agent\'s real pointer never lands on a window above the page', { timeout: 90_000 }, logged(async () => {
    const panelId = await panelWindow();
    const home = await geometry(panelId);
    await agentCall(agent, 'open', { url: fixtures.url('interact.html') });
    // Beside, the drag uses the real pointer and drops.
    const beside = await agentCall(agent, 'drag', { src_selector: '#item', tgt_selector: '#zone' });
    assert.equal(beside.input, 'xtest', JSON.stringify(beside));
    await agentCall(agent, 'eval', { script: "document.getElementById('drop-log').textContent = 'nothing dropped'" });

    // The panel's window over the page, as on a desktop it might be.
    await xdotool('windowmove', panelId, '0', '0');
    await xdotool('windowraise', panelId);
    await waitFor(async () => { const g = await geometry(panelId); return g.X === 0 && g.Y === 0; }, 'the panel window over the browser\'s');
    try {
      await xdotool('mousemove', '--sync', String(home.X + home.WIDTH - 5), String(home.Y + home.HEIGHT - 5));
      const where = async () => (await xdotool('getmouselocation', '--shell')).split('\n').filter((l) => /^[XY]=/.test(l)).join(' ');
      const parked = await where();
      const covered = await agentCall(agent, 'drag', { src_selector: '#item', tgt_selector: '#zone' });
      assert.equal(covered.input, 'gdk', `the real pointer was not used: ${JSON.stringify(covered)}`);
      assert.match(covered.note, /covered/, 'the result says why');
      assert.equal(await where(), parked, 'the X pointer did not move');
      assert.equal((await agentCall(agent, 'eval', { script: "document.getElementById('drop-log').textContent" })).value, 'nothing dropped', 'nothing was dropped');
    } finally {
      await xdotool('windowmove', panelId, String(home.X), String(home.Y));
    }
  }));
});
