// Faults: a tab whose web process crashes, a page stuck in a loop, clients
// that vanish mid-call, many sessions at once, and a clean shutdown that
// leaves no process behind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { REPO_ROOT, startBrowser } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, callError, callJson, connectMcp, mcpPost, rpc, initializeParams } from './support/mcp.mjs';
import { sleep, waitFor } from './support/wait.mjs';
import { descendants } from './support/procs.mjs';
import { startLoggedIn } from './support/session.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';

describe('faults', { timeout: 240_000 }, () => {
  // Regression: a tab whose page crashed answered its old title to
  // get_title, and nothing told the person or agents it was gone.
  it('one tab\'s crashed page is that tab\'s: agents get PAGE_CRASHED, the person a Reload bar, the rest runs on', { timeout: 120_000 }, async () => {
    const session = await startLoggedIn();
    const { fixtures, browser, mcp } = session;
    const panel = await connectPanel(browser);
    const other = await connectMcp(browser, { name: 'other-agent' });
    const webProcesses = () => new Set(descendants(browser.pid).filter((p) => p.comm.startsWith('WebKitWebProces')).map((p) => p.pid));
    try {
      await callJson(other, 'open', { url: fixtures.url('form.html') });
      const kept = (await callJson(other, 'tab_list')).tabs.find((t) => t.current);
      const before = webProcesses();
      // Another site in a tab of its own: a web process of its own.
      await callJson(mcp, 'tab_new', { url: fixtures.url('form.html').replace('127.0.0.1', 'localhost') });
      const doomed = (await callJson(mcp, 'tab_list')).tabs.find((t) => t.current);
      assert.notEqual(doomed.id, kept.id);
      const fresh = [...webProcesses()].filter((pid) => !before.has(pid));
      assert.ok(fresh.length >= 1, 'the new tab has a web process of its own');
      // The new tab's is one of the processes started for it (WebKit may
      // also start a spare): crash them one at a time until the tab says so.
      // SIGABRT, as a failed assertion in the engine ends it: a SIGSEGV sent
      // from outside is taken by JavaScriptCore's own handler and the page
      // carries on.
      let crashed;
      for (const pid of fresh) {
        process.kill(pid, 'SIGABRT');
        crashed = await waitFor(async () => {
          const r = await mcp.callTool('get_title', {});
          return r.structuredContent?.error?.code === 'PAGE_CRASHED' ? r.content[0].text : null;
        }, 'the crash to be reported', 3000).catch(() => null);
        if (crashed) break;
      }
      assert.ok(crashed, 'get_title on the crashed tab answers PAGE_CRASHED');
      assert.match(crashed, /crashed .*reload or open a page in it, or close it/);
      for (const [tool, args] of [['get_url', {}], ['snapshot', {}], ['click', { selector: 'button' }], ['eval', { script: '1' }], ['screenshot', {}]]) {
        const r = await mcp.callTool(tool, args);
        assert.equal(r.structuredContent?.error?.code, 'PAGE_CRASHED', `${tool}: ${JSON.stringify(r).slice(0, 200)}`);
      }
      const listed = (await callJson(mcp, 'tab_list')).tabs;
      assert.equal(listed.find((t) => t.id === doomed.id).crashed, 'crashed', 'tab_list says which tab crashed');
      assert.equal(listed.find((t) => t.id === kept.id).crashed, undefined, 'and no other');
      // The other tab, its agent and the server go on.
      assert.equal((await callJson(other, 'get_title')).title, 'Sign up');
      await callJson(other, 'fill', { selector: '#name', value: 'still here' });
      assert.equal((await callJson(other, 'get_value', { selector: '#name' })).value, 'still here');
      // The console and the network log of the crashed tab are still read.
      assert.ok((await callJson(mcp, 'network_requests', { all: true })).requests.length >= 1);
      // The person sees it in the window, and the Reload there brings it back.
      const display = browser.x11Env();
      const xdo = (...a) => execFileSync('xdotool', a, { env: { ...process.env, ...display } }).toString().trim();
      const shown = await waitFor(async () => {
        const layout = await agentCall(panel, 'window_layout');
        return layout.crashed_bar ? layout : null;
      }, 'the crashed bar over the tab');
      assert.match(shown.crashed_bar, /This tab's page crashed/);
      assert.match(shown.tabs.find((t) => t.front).label, /^💥 /, 'the tab\'s button says so');
      const windowId = xdo('search', '--name', 'Sovereign Browser').split('\n')[0];
      const r = shown.crashed_reload;
      xdo('mousemove', '--window', windowId, String(r.x + Math.floor(r.width / 2)), String(r.y + Math.floor(r.height / 2)));
      xdo('click', '1');
      await waitFor(async () => (await mcp.callTool('get_title', {})).structuredContent?.title === 'Sign up', 'the reloaded page');
      assert.equal((await agentCall(panel, 'window_layout')).crashed_bar, null, 'the bar is gone');
      assert.equal((await callJson(mcp, 'tab_list')).tabs.find((t) => t.id === doomed.id).crashed, undefined);
      const ping = await mcpPost(browser, rpc('initialize', initializeParams()));
      assert.equal(ping.status, 200, 'the server answered throughout');
    } finally {
      await other.close().catch(() => {});
      await panel.close();
      await session.stop();
    }
  });

  // Regression: a page that allocated without end grew its web process
  // until the machine ran short (WebKit's own kill threshold is off), and
  // nothing said why the tab died.
  it('a page taking memory without end loses its own page at --page-memory-mb, and nothing else', { timeout: 120_000 }, async () => {
    const session = await startLoggedIn({ args: ['--page-memory-mb', '512'] });
    const { fixtures, browser, mcp } = session;
    const other = await connectMcp(browser, { name: 'other-agent' });
    try {
      await callJson(other, 'open', { url: fixtures.url('form.html') });
      const kept = (await callJson(other, 'tab_list')).tabs.find((t) => t.current);
      // Another site, so a web process of its own.
      await callJson(mcp, 'tab_new', { url: fixtures.url('memory-hog.html').replace('127.0.0.1', 'localhost') });
      const hog = (await callJson(mcp, 'tab_list')).tabs.find((t) => t.current);
      const ended = await waitFor(async () => {
        const r = await mcp.callTool('get_title', {});
        return r.structuredContent?.error?.code === 'PAGE_CRASHED' ? r.content[0].text : null;
      }, 'the page past its memory bound to be ended', 60_000);
      assert.match(ended, /ran out of memory/);
      const listed = (await callJson(mcp, 'tab_list')).tabs;
      assert.equal(listed.find((t) => t.id === hog.id).crashed, 'out_of_memory', 'tab_list says why');
      assert.equal(listed.find((t) => t.id === kept.id).crashed, undefined, 'and no other tab is touched');
      // No web process is left past the bound, and the rest goes on.
      for (const p of descendants(browser.pid).filter((d) => d.comm.startsWith('WebKitWebProces'))) {
        const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1] ?? 0);
        assert.ok(rss < 600 * 1024, `web process ${p.pid} holds ${rss} KiB`);
      }
      assert.equal((await callJson(other, 'get_title')).title, 'Sign up');
      await callJson(other, 'fill', { selector: '#name', value: 'still here' });
      assert.equal((await callJson(other, 'get_value', { selector: '#name' })).value, 'still here');
      // The tab takes a page that keeps within the bound.
      await callJson(mcp, 'open', { url: fixtures.url('form.html') });
      assert.equal((await callJson(mcp, 'get_title')).title, 'Sign up');
      assert.equal((await callJson(mcp, 'tab_list')).tabs.find((t) => t.id === hog.id).crashed, undefined);
    } finally {
      await other.close().catch(() => {});
      await session.stop();
    }
  });

  it('an agent reloads a crashed tab; every web process killed leaves the browser up', { timeout: 90_000 }, async () => {
    const session = await startLoggedIn();
    const { fixtures, browser, mcp } = session;
    try {
      await callJson(mcp, 'open', { url: fixtures.url('form.html') });
      const web = descendants(browser.pid).filter((p) => p.comm.startsWith('WebKitWebProces'));
      assert.ok(web.length >= 1, 'a web process runs the page');
      for (const p of web) process.kill(p.pid, 'SIGKILL');
      await waitFor(async () => {
        const r = await mcp.callTool('get_text', { selector: 'h1' });
        return r.structuredContent?.error?.code === 'PAGE_CRASHED';
      }, 'the crash to be reported');
      await callJson(mcp, 'reload');
      assert.equal((await callJson(mcp, 'get_title')).title, 'Sign up', 'reload brought the page back');
    } finally {
      await session.stop();
    }
  });

  // Regression: a call still running when the page went to another site
  // (another web process; the old one is kept suspended) never answered,
  // so its caller waited out the whole timeout (seen as a get_title that
  // took 30 s after a navigation from the address bar).
  for (const [where, host] of [['another site', 'localhost'], ['the same site', '127.0.0.1']]) {
    it(`a call in flight when the page moves to ${where} answers when the new page commits`, { timeout: 60_000 }, async () => {
      const session = await startLoggedIn();
      const { fixtures, browser, mcp } = session;
      try {
        await callJson(mcp, 'open', { url: fixtures.url('form.html') });
        const next = JSON.stringify(fixtures.url('slow?ms=200').replace('127.0.0.1', host));
        // The script's promise never settles; the page moves on under it.
        const why = await callError(mcp, 'eval',
          { script: `setTimeout(() => { location.href = ${next}; }, 50); await new Promise(() => {})` }, 'JS_ERROR');
        assert.match(why, /page changed/);
        await waitFor(async () => /\/slow\?ms=200$/.test((await callJson(mcp, 'get_url')).url), 'the new page');
        assert.equal((await callJson(mcp, 'eval', { script: '1 + 1' })).value, 2, 'the new page answers calls');
      } finally {
        await session.stop();
      }
    });
  }

  it('a page stuck in a loop costs its call a timeout, not the server', { timeout: 90_000 }, async () => {
    const session = await startLoggedIn();
    const { fixtures, browser, mcp } = session;
    const other = await connectMcp(browser);
    try {
      await callJson(mcp, 'open', { url: fixtures.url('form.html') });
      await callJson(mcp, 'eval', { script: 'setTimeout(() => { for (;;) {} }, 10); 1' });
      const started = Date.now();
      const stuck = mcp.callTool('wait_for_text', { text: 'never', timeout: 2000 });
      // Meanwhile another session is served at once.
      const t = Date.now();
      assert.equal((await callJson(other, 'login_status')).logged_in, true);
      const pingMs = Date.now() - t;
      const result = await stuck;
      const took = Date.now() - started;
      assert.equal(result.structuredContent?.error?.code, 'TIMEOUT', JSON.stringify(result).slice(0, 300));
      assert.ok(took < 10_000, `the stuck call ended after ${took} ms`);
      assert.ok(pingMs < 2000, `another session waited ${pingMs} ms`);
    } finally {
      await other.close().catch(() => {});
      await session.stop();
    }
  });

  it('a page that never finishes loading ends open at its timeout; the tab moves on', { timeout: 60_000 }, async () => {
    const session = await startLoggedIn();
    const { fixtures, browser, mcp } = session;
    try {
      const started = Date.now();
      const message = await callError(mcp, 'open', { url: fixtures.url('slow?ms=60000'), timeout: 1500 }, 'TIMEOUT');
      const took = Date.now() - started;
      assert.match(message, /still loading after 1500 ms/);
      assert.ok(took < 8000, `open gave up after ${took} ms`);
      assert.equal((await callJson(mcp, 'open', { url: fixtures.url('form.html') })).title, 'Sign up');
    } finally {
      await session.stop();
    }
  });

  it('a signer that stops answering fails the login within its timeout; pings keep answering', { timeout: 60_000 }, async () => {
    // A device that accepts the connection and then says nothing, ever.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-silent-'));
    const socketPath = path.join(dir, 'silent.sock');
    const silent = net.createServer((socket) => { socket.on('data', () => {}); });
    await new Promise((r) => silent.listen(socketPath, r));
    const browser = await startBrowser();
    const mcp = await connectMcp(browser);
    const init = await mcpPost(browser, rpc('initialize', initializeParams()));
    try {
      const started = Date.now();
      const login = mcp.callTool('login', { method: 'nsigner', transport: 'unix', device: socketPath });
      const pings = [];
      let done = false;
      login.finally(() => { done = true; });
      while (!done && Date.now() - started < 40_000) {
        const t = Date.now();
        const pong = await mcpPost(browser, rpc('ping'), { sessionId: init.sessionId });
        pings.push(Date.now() - t);
        assert.deepEqual(pong.message.result, {}, 'ping answers meanwhile');
        await new Promise((r) => setTimeout(r, 100));
      }
      const result = await login;
      const took = Date.now() - started;
      const code = result.structuredContent?.error?.code;
      // The signer's own limit (10 s for a quick request) ends it, well
      // before the tool's (30 s).
      assert.equal(code, 'SIGNER_UNAVAILABLE', JSON.stringify(result).slice(0, 300));
      assert.ok(took < 30_000, `the login gave up after ${took} ms`);
      assert.ok(pings.length > 3, 'pings ran while the login waited');
      const worst = Math.max(...pings);
      console.log(`# ping while the signer hung: ${pings.length} pings, worst ${worst} ms, login ended after ${took} ms`);
      assert.equal((await callJson(mcp, 'login_status')).logged_in, false);
    } finally {
      await mcp.close().catch(() => {});
      await browser.stop();
      silent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('clients that vanish mid-call and fifty sessions at once leave the server serving', { timeout: 60_000 }, async () => {
    const browser = await startBrowser();
    const panel = await connectPanel(browser);
    try {
      // Logged in, so that the calls below run (logged out, they are refused at once).
      const first = await connectMcp(browser);
      await callJson(first, 'login', { method: 'local', nsec: TEST_NSEC });
      await first.close();
      const sessions = await Promise.all(Array.from({ length: 50 }, () => mcpPost(browser, rpc('initialize', initializeParams()))));
      assert.ok(sessions.every((s) => s.status === 200 && s.sessionId), 'fifty sessions');
      assert.equal(new Set(sessions.map((s) => s.sessionId)).size, 50);
      // Start slow calls and walk away from them.
      const aborts = sessions.slice(0, 10).map((s) => {
        const controller = new AbortController();
        fetch(browser.mcpUrl, {
          method: 'POST',
          signal: controller.signal,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${browser.token}`, 'Mcp-Session-Id': s.sessionId },
          body: JSON.stringify(rpc('tools/call', { name: 'wait', arguments: { ms: 3000 } })),
        }).catch(() => {});
        return controller;
      });
      // The window's activity indicator shows when all ten are running.
      await waitFor(async () => (await agentCall(panel, 'window_layout')).activity.includes('10 agents working'),
        'the window to show the ten calls running');
      for (const c of aborts) c.abort();
      const mcp = await connectMcp(browser);
      assert.equal((await callJson(mcp, 'login_status')).logged_in, true, 'still serving');
      assert.equal(typeof (await callJson(mcp, 'get_url')).url, 'string', 'and running tools');
      await mcp.close();
    } finally {
      await panel.close();
      await browser.stop();
    }
  });

  // SIGTERM, SIGINT, or a person closing the window: the same clean end.
  const endings = {
    SIGTERM: (browser) => browser.stop(),
    SIGINT: (browser) => { browser.proc.kill('SIGINT'); return browser.exited; },
    'closing the window': (browser) => {
      const x11 = browser.x11Env();
      assert.ok(x11, 'the browser says which display it started, and its cookie');
      const env = { ...process.env, ...x11 };
      const window = execFileSync('xdotool', ['search', '--name', 'Sovereign Browser'], { env }).toString().trim().split('\n')[0];
      execFileSync('python3', [path.join(REPO_ROOT, 'tests/support/close_window.py'), window], { env });
      return browser.exited;
    },
  };
  for (const [ending, end] of Object.entries(endings)) {
    it(`${ending} ends the browser cleanly: no process is left behind`, { timeout: 60_000 }, async () => {
      const session = await startLoggedIn();
      const { fixtures, browser, mcp } = session;
      try {
        await callJson(mcp, 'open', { url: fixtures.url('form.html') });
        await mcp.close();
        const family = descendants(browser.pid);
        assert.ok(family.some((p) => p.comm.startsWith('WebKit')), 'WebKit processes ran');
        assert.ok(family.some((p) => p.comm === 'Xvfb'), 'the private Xvfb ran');
        const exit = await Promise.race([end(browser), sleep(20_000).then(() => 'still running')]);
        assert.notEqual(exit, 'still running', `${ending} did not end the browser`);
        assert.equal(exit.code ?? 0, 0, `exit ${JSON.stringify(exit)}: ${browser.stderrTail(2000)}`);
        await waitFor(async () => family.every((p) => !existsSync(`/proc/${p.pid}`) || readFileSync(`/proc/${p.pid}/stat`, 'utf8').includes(') Z ')),
          'every child process to end');
      } finally {
        await session.stop();
      }
    });
  }

  it('a persistent profile keeps its cookies and local storage across a shutdown', { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-profile-'));
    const fixtures = await startFixtureServer();
    try {
      for (const round of ['before', 'after']) {
        const browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', dir] });
        const mcp = await connectMcp(browser);
        try {
          await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
          await callJson(mcp, 'open', { url: fixtures.url('form.html') });
          if (round === 'before') {
            await callJson(mcp, 'cookies_set', { name: 'kept', value: 'yes', expires: Math.floor(Date.now() / 1000) + 86_400 });
            await callJson(mcp, 'storage_local_set', { key: 'kept', value: 'too' });
          } else {
            const cookies = (await callJson(mcp, 'cookies_get', { all: true })).cookies;
            assert.deepEqual(cookies.map((c) => `${c.name}=${c.value}`), ['kept=yes']);
            assert.equal((await callJson(mcp, 'storage_local_get_key', { key: 'kept' })).value, 'too');
          }
        } finally {
          await mcp.close().catch(() => {});
          assert.equal((await browser.stop()).code, 0);
        }
      }
    } finally {
      await fixtures.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
