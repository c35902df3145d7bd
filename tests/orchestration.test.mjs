// What an orchestrator (Kubernetes, a supervisor) relies on: secrets from
// files or the environment, never printed; /healthz and /readyz without a
// token, telling nothing else; /metrics behind the token; and a stop on
// SIGTERM that lets a running call finish, refuses new ones, and leaves
// the profile whole for the next start.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBrowser } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, callError, callJson, callText, connectMcp } from './support/mcp.mjs';
import { connectPanel } from './support/agent.mjs';
import { waitFor } from './support/wait.mjs';

describe('run by an orchestrator', { timeout: 180_000 }, () => {
  let dir;
  let fixtures;
  let token;
  let panelKey;
  let metricsToken;
  before(async () => {
    fixtures = await startFixtureServer();
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-orchestration-'));
    token = randomBytes(24).toString('hex');
    panelKey = randomBytes(24).toString('hex');
    metricsToken = randomBytes(24).toString('hex');
    // As a Kubernetes Secret mounts them: one file each, a newline at the end.
    writeFileSync(path.join(dir, 'token'), `${token}\n`);
    writeFileSync(path.join(dir, 'panel-key'), `${panelKey}\n`);
    writeFileSync(path.join(dir, 'metrics-token'), `${metricsToken}\n`);
  });
  after(async () => {
    await fixtures?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const start = () => startBrowser({
    baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', path.join(dir, 'profile')],
    env: {
      SOVEREIGN_TOKEN_FILE: path.join(dir, 'token'),
      SOVEREIGN_PANEL_KEY_FILE: path.join(dir, 'panel-key'),
      SOVEREIGN_METRICS_TOKEN_FILE: path.join(dir, 'metrics-token'),
    },
  });
  const get = (browser, route, headers = {}) => fetch(`${browser.base}${route}`, { headers });

  it('takes its secrets from files, prints neither, and answers probes and metrics', async () => {
    const browser = await start();
    try {
      assert.equal(browser.token, token);
      assert.equal(browser.panelKey, null, 'the printed panel address carries no key');
      const printed = browser.stdout() + browser.stderr();
      assert.ok(![panelKey, token, metricsToken].some((s) => printed.includes(s)), 'no secret in the output');

      // The probes: no token, one word each.
      for (const [route, body] of [['/healthz', 'ok\n'], ['/readyz', 'ready\n']]) {
        const reply = await get(browser, route);
        assert.equal(reply.status, 200, route);
        assert.equal(await reply.text(), body, route);
      }
      // The token given is the one, the panel key given is the person's.
      assert.equal((await get(browser, '/metrics')).status, 401);
      assert.equal((await get(browser, '/metrics', { Authorization: 'Bearer wrong-token-0123456789' })).status, 401);
      assert.equal((await get(browser, '/metrics', { Authorization: `Bearer ${panelKey}` })).status, 401);
      // The monitoring system's credential reads /metrics and opens nothing else.
      assert.equal((await get(browser, '/metrics', { Authorization: `Bearer ${metricsToken}` })).status, 200);
      assert.equal((await fetch(browser.mcpUrl, {
        method: 'POST',
        headers: { Authorization: `Bearer ${metricsToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })).status, 401, '/mcp refuses it');
      await assert.rejects(connectPanel({ ...browser, panelKey: metricsToken }), /401/);
      const panel = await connectPanel({ ...browser, panelKey });
      panel.close();
      await assert.rejects(connectPanel({ ...browser, panelKey: token }), /401/);

      const mcp = await connectMcp(browser);
      try {
        await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
        await callJson(mcp, 'open', { url: fixtures.url('/form.html') });
        await callText(mcp, 'snapshot');
        await callError(mcp, 'click', { ref: 'e99999' }, 'ELEMENT_NOT_FOUND');
        const reply = await get(browser, '/metrics', { Authorization: `Bearer ${token}` });
        assert.equal(reply.status, 200);
        assert.match(reply.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
        const text = await reply.text();
        const value = (series) => {
          const line = text.split('\n').find((l) => l.startsWith(`${series} `));
          assert.ok(line, `${series} in /metrics:\n${text.slice(0, 3000)}`);
          return Number(line.slice(series.length + 1));
        };
        assert.equal(value('sovereign_tool_calls_total{tool="open",outcome="ok"}'), 1);
        assert.equal(value('sovereign_tool_calls_total{tool="click",outcome="ELEMENT_NOT_FOUND"}'), 1);
        assert.equal(value('sovereign_tool_call_duration_seconds_count{tool="snapshot"}'), 1);
        assert.equal(value('sovereign_tool_call_duration_seconds_bucket{tool="snapshot",le="+Inf"}'), 1);
        assert.equal(value('sovereign_open_tabs'), 1);
        assert.equal(value('sovereign_open_contexts'), 1);
        assert.equal(value('sovereign_sessions{transport="mcp"}'), 1);
        assert.equal(value('sovereign_ready'), 1);
        assert.ok(value('sovereign_memory_pss_bytes{process="browser"}') > 20e6, 'the browser process\'s memory');
        assert.ok(value('sovereign_memory_pss_bytes{process="helpers"}') > 20e6, 'its web processes\' memory');
        // Every line is a comment or a sample (Prometheus' text format).
        for (const line of text.trim().split('\n')) {
          assert.match(line, /^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[\d.e+]+)$/, line);
        }
      } finally {
        await mcp.close();
      }
    } finally {
      await browser.stop();
    }
  });

  it('SIGTERM lets the running call finish, refuses new ones, and leaves the profile whole', async () => {
    let browser = await start();
    const page = fixtures.url('/context-store.html');
    try {
      const mcp = await connectMcp(browser);
      const late = await connectMcp(browser, { name: 'late' });
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(late, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'open', { url: page });
      await callJson(mcp, 'eval', { script: "storeAll('before-the-stop')" });

      const running = callJson(mcp, 'wait', { ms: 3000 });
      await waitFor(async () => {
        const text = await (await get(browser, '/metrics', { Authorization: `Bearer ${token}` })).text();
        return /^sovereign_tool_calls_running 1$/m.test(text);
      }, 'the wait to be running');
      const stopped = Date.now();
      browser.proc.kill('SIGTERM');
      await waitFor(async () => (await get(browser, '/readyz')).status === 503, '/readyz to say stopping');
      assert.equal(await (await get(browser, '/readyz')).text(), 'stopping\n');
      assert.match(await callError(late, 'get_url', {}, 'BUSY'), /stopping/);
      assert.deepEqual(await running, { waited_ms: 3000 }, 'the running call finished with its result');
      const { code } = await browser.exited;
      assert.equal(code, 0);
      assert.ok(Date.now() - stopped < 20_000, 'ended within the grace');
    } finally {
      await browser.stop();
    }

    browser = await start();
    try {
      const mcp = await connectMcp(browser);
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'open', { url: page });
      const kept = (await callJson(mcp, 'eval', { script: 'readAll()' })).value;
      assert.deepEqual([kept.cookie, kept.local, kept.idb], ['before-the-stop', 'before-the-stop', 'before-the-stop']);
      await mcp.close();
    } finally {
      await browser.stop();
    }
  });
});
