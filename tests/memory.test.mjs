// Memory a page or an agent can make the browser keep. Everything lives in
// the one process that also holds the person's window, so a page that
// floods (console details of 20 MB, data: images of 1 MB, long URLs and
// headers, fetch bodies, more such windows of its own) and agents that
// flood (stateless requests each with a big distinct clientInfo, /agent
// messages with 4 MB tool names, a client that never reads its replies,
// sessions and connections by the hundred) must leave the browser process's
// memory within a bound, and another agent's get_url fast.
//
// Measured: VmRSS of the browser's own process (/proc/<pid>/status). The
// web processes (the page's own memory, as in any browser) are not counted;
// they are printed beside it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { loggedInSuite } from './support/session.mjs';
import { callJson, connectMcp, initializeParams, mcpPost, modernMeta, modernPost, rpc } from './support/mcp.mjs';
import { connectAgent } from './support/agent.mjs';
import { descendants } from './support/procs.mjs';
import { waitFor } from './support/wait.mjs';

const MiB = 1024 * 1024;
/** What the page's floods may add to the browser process. */
const PAGE_BOUND = 250 * MiB;
/** What the page's and the agents' floods together may add. */
const TOTAL_BOUND = 350 * MiB;
/** A bystander's get_url: generous, timings are not otherwise asserted. */
const GET_URL_MS = 2000;

const rssOf = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
};
const webProcessesRss = (pid) => descendants(pid)
  .filter((p) => /WebKitWebProces|WebKitWebProcess/.test(p.comm))
  .reduce((sum, p) => { try { return sum + rssOf(p.pid); } catch { return sum; } }, 0);
const mib = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`;

describe('memory', { timeout: 900_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let bystander;
  let start;
  const pid = () => suite.session.browser.proc.pid;
  const grown = () => rssOf(pid()) - start;
  const report = (t, what) => t.diagnostic(
    `${what}: browser +${mib(grown())} (VmRSS ${mib(rssOf(pid()))}), web processes ${mib(webProcessesRss(pid()))}`);

  /** The bystander agent's get_url, timed. */
  async function quickGetUrl(what) {
    const began = performance.now();
    await callJson(bystander, 'get_url');
    const ms = performance.now() - began;
    assert.ok(ms < GET_URL_MS, `${what}: another agent's get_url took ${ms.toFixed(0)} ms`);
    return ms;
  }

  it('a page that floods leaves the browser process within its bound', { timeout: 420_000 }, logged(async (t) => {
    bystander = await connectMcp(suite.session.browser, { name: 'bystander' });
    await call('open', { url: 'about:blank' });
    start = rssOf(pid());
    t.diagnostic(`start: VmRSS ${mib(start)}`);
    await call('open', { url: suite.fixtures.url('memory-flood.html') });
    // The page opens three more such windows, one per click.
    for (let i = 0; i < 3; i++) {
      await call('click', { selector: '#more' });
      await waitFor(async () => (await call('tab_list')).tabs.length >= i + 2, `window ${i + 1} of the page`);
      await call('tab_switch', { index: 0 });
    }
    await waitFor(async () => (await call('tab_list')).tabs.slice(1).every((tab) => tab.title === 'ready'),
      'the three windows to be ready', 60_000);
    // The click starts the floods; its answer may wait on a browser they
    // keep busy, so only the floods' end is awaited.
    await suite.mcp.callTool('click', { selector: '#start' });
    await waitFor(async () => {
      const tabs = (await call('tab_list')).tabs;
      return tabs.length >= 4 && tabs.every((tab) => tab.title === 'flooded');
    }, 'the page and the three it opened to finish flooding', 360_000);
    report(t, 'after the page floods');
    await quickGetUrl('after the page floods');
    assert.ok(grown() < PAGE_BOUND, `the browser grew by ${mib(grown())}, past ${mib(PAGE_BOUND)}`);

    // What the page made the browser keep is cut, with its marker.
    const console = await call('console', { limit: 1000 });
    for (const entry of console.entries) {
      assert.ok(entry.text.length < 2100, `a console text of ${entry.text.length} characters`);
      assert.ok(entry.url.length < 2200, `a console URL of ${entry.url.length} characters`);
    }
    const requests = await call('network_requests', { limit: 1000, all: true });
    const data = requests.requests.filter((r) => r.url.startsWith('data:'));
    assert.ok(data.length > 0, 'the data: images are listed');
    for (const r of requests.requests) assert.ok(r.url.length < 2200, `a URL of ${r.url.length} characters`);
    assert.match(data[0].url, /^data:image\/gif;base64,R0lGOD.*…\[data: URL of 10\d{5} bytes\]$/);
    const headers = requests.requests.find((r) => r.url.includes('/net/headers'));
    const detail = await call('network_request', { id: headers.id });
    assert.ok(JSON.stringify(detail.response_headers).length < 20_000, 'headers are kept to their bound');
    assert.match(detail.response_headers['…'], /more headers cut/);
  }));

  it('agents that flood leave it within its bound, are refused past theirs, and get_url stays fast', { timeout: 420_000 }, logged(async (t) => {
    const browser = suite.session.browser;

    // Hundreds of stateless requests, each with a big clientInfo of its own.
    const pad = 'a'.repeat(200_000);
    for (let i = 0; i < 400; i += 8) {
      await Promise.all(Array.from({ length: 8 }, (_, j) => modernPost(browser, 'tools/call', { name: 'get_url', arguments: {} }, {
        meta: modernMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'flood', version: String(i + j), pad } }),
      })));
    }
    report(t, 'after 400 stateless requests with a 200 KB clientInfo');
    await quickGetUrl('after the stateless flood');

    // /agent messages whose tool names are 4 MB.
    const agent = await connectAgent(browser);
    const name = 'x'.repeat(4_000_000);
    for (let i = 0; i < 20; i++) {
      const reply = await agent.call(name, {}, { timeout: 60_000 });
      assert.equal(reply.error?.code, 'UNKNOWN_TOOL');
      assert.ok(JSON.stringify(reply).length < 1000, 'the refusal does not echo the name');
    }
    await agent.close();
    report(t, 'after 20 /agent messages with 4 MB tool names');

    // A client that sends many requests and never reads a reply.
    const deaf = await new Promise((resolve, reject) => {
      const ws = new WebSocket(browser.agentUrl, { headers: { Authorization: `Bearer ${browser.token}` } });
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
    deaf._socket.pause();
    for (let i = 0; i < 300; i++) deaf.send(JSON.stringify({ id: i, tool: 'screenshot', params: {} }));
    // While it is stuck, others are served.
    for (let i = 0; i < 5; i++) await quickGetUrl('beside a client that never reads');
    report(t, 'beside a client that never reads 300 screenshots');

    // Sessions and connections by the hundred: refused past the bound, clearly.
    const opened = await Promise.all(Array.from({ length: 100 }, () => mcpPost(browser, rpc('initialize', initializeParams()))));
    const refused = opened.filter((r) => r.status !== 200);
    assert.ok(refused.length > 0, 'past the bound, initialize is refused');
    for (const r of refused) {
      assert.equal(r.status, 503);
      assert.match(r.message?.error?.message ?? r.text, /^BUSY: /);
    }
    const agents = await Promise.allSettled(Array.from({ length: 80 }, () => connectAgent(browser)));
    const turnedAway = agents.filter((a) => a.status === 'rejected');
    assert.ok(turnedAway.length > 0, 'past the bound, /agent connections are refused');
    for (const a of turnedAway) assert.equal(a.reason.status, 503);
    await Promise.all(agents.filter((a) => a.status === 'fulfilled').map((a) => a.value.close()));
    await quickGetUrl('after the sessions flood');
    report(t, 'after 100 sessions and 80 connections');

    assert.ok(grown() < TOTAL_BOUND, `the browser grew by ${mib(grown())}, past ${mib(TOTAL_BOUND)}`);
    deaf.terminate();
    await bystander.close();
  }));
});
