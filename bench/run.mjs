#!/usr/bin/env node
// Benchmark harness: cold start, cheap-call latency, snapshot speed and size,
// and the memory of the whole process tree, against the reference figures in
// the benchmark pages' README.
//
// Usage: npm run bench
//   SOVEREIGN_BIN     the binary (default: target/release/sovereign-browser)
//   BENCH_PAGES       the benchmark pages folder (default: ../shared/bench-pages,
//                     relative to the repository root)
//   BENCH_COLD_RUNS   number of cold starts (default 3)
//   BENCH_PEER        0: measure this browser only (default: Playwright MCP too,
//                     installed into target/bench-peer when missing)
//
// It builds nothing. Results are printed as a table and written to
// bench/results.json.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { treePss } from './pss.mjs';
import { PEER_NAME, startPeer } from './peer.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { modernPost } from '../tests/support/mcp.mjs';
import { TEST_NSEC, callJson, connectMcp, textResult } from '../tests/support/mcp.mjs';
import { connectPanel } from '../tests/support/agent.mjs';
import { siteCalls } from '../tests/support/site_calls.mjs';
import { waitFor } from '../tests/support/wait.mjs';
import { encode as cl100kEncode } from 'gpt-tokenizer/encoding/cl100k_base';

/** Tokens as an OpenAI cl100k tokenizer counts them (the peers' reference unit). */
const countTokens = (text) => cl100kEncode(text).length;

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const PAGES = path.resolve(REPO_ROOT, process.env.BENCH_PAGES || '../shared/bench-pages');
const COLD_RUNS = Math.max(1, Number(process.env.BENCH_COLD_RUNS) || 3);
const CHEAP_WARMUP = 20;
const CHEAP_CALLS = 500;
const SNAPSHOT_CALLS = 20;
const FILL_ROUNDS = 30;
const NOSTR_CALLS = 200;
const WITH_PEER = process.env.BENCH_PEER !== '0';
const RESULTS = fileURLToPath(new URL('./results.json', import.meta.url));

// Playwright MCP 0.0.83 with headless Chromium on a 2-core machine (medians),
// from the benchmark pages' README.
const REFERENCE = {
  source: 'Playwright MCP 0.0.83 (headless Chromium), 2-core machine, medians',
  cheapCallMs: 20,
  snapshotLargeMs: 575,
  snapshotLargeTokens: 79_508,
  snapshotFormMs: 32,
  snapshotFormTokens: 712,
  pssPeakMiB: 857,
  // tools/list of its 25 tools, JSON.stringify'd as below.
  toolsListTools: 25,
  toolsListTokens: 4_310,
};

// ---------------------------------------------------------------------------
// Memory with several tabs open

/**
 * Opens tabs up to `count` (each page of `urls` in turn, each snapshotted
 * once), samples the tree's PSS, and closes the tabs it opened.
 */
async function memoryWithTabs(browser, mcp, count, urls) {
  const opened = [];
  const have = (await callJson(mcp, 'tab_list')).tabs.length;
  for (let i = have; i < count; i++) {
    const { tab } = await callJson(mcp, 'tab_new', { url: urls[i % urls.length] });
    opened.push(tab);
    textResult(await mcp.callTool('snapshot', { tab }), 'snapshot');
  }
  await sleep(500);
  const { totalMiB, processes } = treePss(browser.pid);
  const byProgram = {};
  for (const p of processes) {
    byProgram[p.comm] ??= { count: 0, pssMiB: 0 };
    byProgram[p.comm].count += 1;
    byProgram[p.comm].pssMiB = round(byProgram[p.comm].pssMiB + p.pssMiB);
  }
  for (const tab of opened) await callJson(mcp, 'close', { tab });
  return { tabs: count, totalMiB, byProgram };
}

// ---------------------------------------------------------------------------
// Small helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of a list of numbers. */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
const median = (values) => percentile(values, 50);
const round = (x, digits = 1) => (x === undefined || x === null ? x : Number(x.toFixed(digits)));

function log(msg) { process.stderr.write(`bench: ${msg}\n`); }

// ---------------------------------------------------------------------------
// Measurements

async function login(mcp) {
  const r = await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
  if (!r.logged_in) throw new Error(`login failed: ${JSON.stringify(r)}`);
}

/** The tools a client of 2026-07-28 lists (no session: tab tools take a tab id). */
async function statelessToolsList(browser) {
  const reply = await modernPost(browser, 'tools/list');
  if (!reply.message?.result?.tools) throw new Error(`stateless tools/list failed: ${reply.text}`);
  return reply.message.result.tools;
}

/**
 * One cold start as a person or an agent's host starts it (`--headless`:
 * its own Xvfb included): spawn to the first page opened, MCP connect and
 * login included. Returns { browser, mcp, listeningMs, readyMs }.
 */
async function coldStart(url) {
  const t0 = performance.now();
  const browser = await startBrowser({
    bin: BIN,
    baseArgs: ['--headless', '--ephemeral', '--no-panel', '--port', '0', '--log-level', 'warn'],
  });
  const listeningMs = performance.now() - t0;
  const mcp = await connectMcp(browser, { name: 'sovereign-bench' });
  await login(mcp);
  await callJson(mcp, 'open', { url });
  const readyMs = performance.now() - t0;
  return { browser, mcp, listeningMs, readyMs };
}

/** The peer's cold start, the same way: spawn to the first page opened. */
async function peerColdStart(url) {
  const t0 = performance.now();
  const peer = await startPeer('bench');
  const reply = await peer.client.callTool({ name: 'browser_navigate', arguments: { url } });
  if (reply.isError) throw new Error(`peer browser_navigate failed: ${JSON.stringify(reply).slice(0, 300)}`);
  return { peer, readyMs: performance.now() - t0 };
}

/**
 * The peer's figures on the same pages as ours: a cheap call (its tab
 * list), snapshots of both pages (time, tokens) and the peak PSS of its
 * process tree (Node and Chromium) sampled after each step, as ours is.
 */
async function peerFigures(peer, largeUrl, formUrl) {
  const call = async (name, args = {}) => {
    const reply = await peer.client.callTool({ name, arguments: args });
    if (reply.isError) throw new Error(`peer ${name} failed: ${JSON.stringify(reply).slice(0, 300)}`);
    return reply.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  };
  const samples = [treePss(peer.pid).totalMiB];
  const timed = async (n, fn) => {
    const times = [];
    let last;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      last = await fn();
      times.push(performance.now() - t);
    }
    return { times, last };
  };
  const cheap = await timed(CHEAP_CALLS / 5, () => call('browser_tabs', { action: 'list' }));
  samples.push(treePss(peer.pid).totalMiB);
  const snapshotsOf = async (url) => {
    await call('browser_navigate', { url });
    const { times, last } = await timed(SNAPSHOT_CALLS, () => call('browser_snapshot'));
    samples.push(treePss(peer.pid).totalMiB);
    return { p50Ms: round(median(times)), tokens: countTokens(last) };
  };
  const large = await snapshotsOf(largeUrl);
  const form = await snapshotsOf(formUrl);
  return {
    name: PEER_NAME,
    cheapCall: { tool: 'browser_tabs list', p50Ms: round(median(cheap.times), 2), p99Ms: round(percentile(cheap.times, 99), 2) },
    snapshot: { large, form },
    pssPeakMiB: Math.max(...samples),
  };
}

async function cheapCalls(mcp) {
  for (let i = 0; i < CHEAP_WARMUP; i++) await mcp.callTool('get_url', {});
  const times = [];
  for (let i = 0; i < CHEAP_CALLS; i++) {
    const t = performance.now();
    const r = await mcp.callTool('get_url', {});
    times.push(performance.now() - t);
    if (r.isError) throw new Error(`get_url failed: ${JSON.stringify(r)}`);
  }
  return {
    tool: 'get_url',
    calls: CHEAP_CALLS,
    p50Ms: round(median(times), 2),
    p99Ms: round(percentile(times, 99), 2),
    meanMs: round(times.reduce((a, b) => a + b, 0) / times.length, 2),
  };
}

/**
 * The same call from a minimal MCP client: raw JSON-RPC POSTs on one
 * keep-alive connection, SSE replies as the SDK asks for them. This is the
 * server's own latency, without the SDK client's overhead.
 */
async function cheapCallsRaw(browser) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body, session) => new Promise((resolve, reject) => {
    const req = http.request(browser.mcpUrl, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${browser.token}`,
        ...(session ? { 'mcp-session-id': session } : {}),
      },
    }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve({ res, data }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-raw', version: '0' } } });
  const session = init.res.headers['mcp-session-id'];
  const times = [];
  for (let i = 1; i <= CHEAP_CALLS; i++) {
    const t = performance.now();
    const { data } = await post({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_url', arguments: {} } }, session);
    times.push(performance.now() - t);
    if (!data.includes('"url"')) throw new Error(`raw get_url failed: ${data}`);
  }
  agent.destroy();
  return { tool: 'get_url', client: 'raw keep-alive HTTP', calls: CHEAP_CALLS, p50Ms: round(median(times), 2), p99Ms: round(percentile(times, 99), 2) };
}

// The command-line client, a process per call: start to printed result.
const CLI_CALLS = 30;
function cliCalls(browser) {
  const cli = path.join(path.dirname(BIN), 'sovereign');
  if (!existsSync(cli)) return null;
  const env = { ...process.env, SOVEREIGN_ADDR: `127.0.0.1:${browser.port}`, SOVEREIGN_TOKEN: browser.token };
  const times = [];
  for (let i = 0; i < CLI_CALLS; i++) {
    const t = performance.now();
    const out = execFileSync(cli, ['get_url'], { env, encoding: 'utf8' });
    times.push(performance.now() - t);
    if (!out.startsWith('url: ')) throw new Error(`sovereign get_url printed ${out}`);
  }
  return { tool: 'get_url', client: 'sovereign (new process per call)', calls: CLI_CALLS, p50Ms: round(median(times), 2), p99Ms: round(percentile(times, 99), 2) };
}

async function snapshots(mcp, url) {
  await callJson(mcp, 'open', { url });
  let t = performance.now();
  let text = textResult(await mcp.callTool('snapshot', { interactive: true }), 'snapshot');
  const firstMs = performance.now() - t;
  const times = [];
  for (let i = 0; i < SNAPSHOT_CALLS; i++) {
    t = performance.now();
    text = textResult(await mcp.callTool('snapshot', { interactive: true }), 'snapshot');
    times.push(performance.now() - t);
  }
  const chars = text.length;
  return {
    calls: SNAPSHOT_CALLS,
    firstMs: round(firstMs),
    p50Ms: round(median(times)),
    p90Ms: round(percentile(times, 90)),
    chars,
    tokens: countTokens(text),
    refs: (text.match(/^\s*e\d+ /gm) ?? []).length,
    lines: text.split('\n').length,
  };
}

/**
 * The full tree of the page in front, text and all, in one part (the
 * peers' snapshots are always the full tree).
 */
async function fullTrees(mcp) {
  const args = { interactive: false, max_chars: 4_000_000 };
  let text = textResult(await mcp.callTool('snapshot', args), 'snapshot');
  const times = [];
  for (let i = 0; i < SNAPSHOT_CALLS; i++) {
    const t = performance.now();
    text = textResult(await mcp.callTool('snapshot', args), 'snapshot');
    times.push(performance.now() - t);
  }
  if (/\[\.\.\. \d+ more lines/.test(text)) throw new Error('the full tree came in parts');
  return { calls: SNAPSHOT_CALLS, p50Ms: round(median(times)), p90Ms: round(percentile(times, 90)),
    chars: text.length, tokens: countTokens(text) };
}

/**
 * What recording every request costs: opening the 5,000-element page
 * (open answers once it has loaded), and 200 fetch() calls one after the
 * other in a page, timed in the page (each is recorded, and its body read
 * by the recorder).
 */
const LOADS = 15;
const FETCHES = 200;
async function pageLoads(mcp, largeUrl, formUrl) {
  const times = [];
  for (let i = 0; i < LOADS; i++) {
    const t = performance.now();
    await callJson(mcp, 'open', { url: largeUrl });
    times.push(performance.now() - t);
  }
  await callJson(mcp, 'open', { url: formUrl });
  const script = `const t = performance.now();
    for (let i = 0; i < ${FETCHES}; i++) await (await fetch('/form.html?fetch=' + i)).text();
    return performance.now() - t`;
  const fetchMs = (await callJson(mcp, 'eval', { script })).value;
  return { loads: LOADS, p50Ms: round(median(times)), p90Ms: round(percentile(times, 90)),
    fetches: FETCHES, fetchEachMs: round(fetchMs / FETCHES, 2) };
}

/** Opens `url` and gives the ref of the element whose line `pattern` matches (its group 1). */
async function refOnPage(mcp, url, pattern, what) {
  await callJson(mcp, 'open', { url });
  const first = textResult(await mcp.callTool('snapshot', { interactive: true }), 'snapshot');
  const ref = pattern.exec(first)?.[1];
  if (!ref) throw new Error(`no ${what} in the snapshot:\n${first}`);
  return ref;
}

/**
 * A click that changes the page, then a snapshot to see it: dynamic.html's
 * "Add item" button. Each round's snapshot must show the new count, so a
 * fast answer that missed the page's effect counts as a failure.
 */
const CLICK_ROUNDS = 30;
async function clickAndSnapshot(mcp, url) {
  const ref = await refOnPage(mcp, url, /(e\d+) button "Add item"/, 'Add item button');
  const times = [];
  const clickTimes = [];
  let verified = 0;
  for (let i = 1; i <= CLICK_ROUNDS; i++) {
    const t = performance.now();
    await callJson(mcp, 'click', { ref });
    clickTimes.push(performance.now() - t);
    const text = textResult(await mcp.callTool('snapshot', { interactive: false }), 'snapshot');
    times.push(performance.now() - t);
    if (text.includes(`${i} ${i === 1 ? 'item' : 'items'}`) && text.includes(`Item ${i}`)) verified += 1;
  }
  return { rounds: CLICK_ROUNDS, verified, p50Ms: round(median(times)), p90Ms: round(percentile(times, 90)),
    clickP50Ms: round(median(clickTimes)), note: 'click on dynamic.html\'s Add item, then a full (interactive: false) snapshot; verified: rounds whose snapshot shows the new item and count' };
}

/**
 * fill of the sign-up form's name field by ref, a different value each time;
 * verified: rounds whose result and the field's value (read back) agree.
 */
async function fills(mcp, url) {
  const ref = await refOnPage(mcp, url, /(e\d+) textbox "Full name"/, 'Full name field');
  const times = [];
  let verified = 0;
  for (let i = 1; i <= FILL_ROUNDS; i++) {
    const value = `Ada Lovelace ${i}`;
    const t = performance.now();
    const filled = await callJson(mcp, 'fill', { ref, value });
    times.push(performance.now() - t);
    const read = await callJson(mcp, 'get_value', { ref });
    if (filled.value === value && read.value === value) verified += 1;
  }
  return { rounds: FILL_ROUNDS, verified, p50Ms: round(median(times)), p90Ms: round(percentile(times, 90)),
    note: 'fill by ref of form.html\'s Full name, a new value each round; verified: rounds whose result and get_value agree' };
}

/**
 * window.nostr.signEvent as a web app sees it: measured in the page, from the
 * call to the signed event, once the origin is always allowed (local key).
 * The calls are the app's own (tests/fixtures/nostr-app.html at `url`): an
 * agent's eval would be asked about each time. They run in a tab of their
 * own, since the earlier steps' evals marked the session's tab as one where
 * an agent ran its own script (and "always" is not offered there).
 */
async function nostrSigning(browser, mcp, url) {
  const site = siteCalls(mcp, url);
  const panel = await connectPanel(browser);
  await callJson(mcp, 'tab_new', { url: 'about:blank' });
  try {
    const sign = 'window.nostr.signEvent({ kind: 1, content: "bench", tags: [] })';
    const first = site.call(sign);
    const prompt = await waitFor(async () => (await panel.call('nostr_permissions')).result.prompts[0], 'the prompt');
    if (prompt.agent_scripted) throw new Error('the signing tab is marked as agent-scripted: the bench would time an agent\'s calls, not the site\'s');
    await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true, remember: true });
    await first;
    const script = `(async () => {
      const times = [];
      const began = performance.now();
      for (let i = 0; i < ${NOSTR_CALLS}; i++) {
        const start = performance.now();
        await window.nostr.signEvent({ kind: 1, content: 'bench ' + i, tags: [['t', 'bench']] });
        times.push(performance.now() - start);
      }
      return { times, total: performance.now() - began };
    })()`;
    const { times, total } = (await site.call(script)).value;
    await panel.call('nostr_permission_revoke', { origin: new URL(url).origin });
    return { calls: NOSTR_CALLS, meanMs: round(total / NOSTR_CALLS, 2), p50Ms: round(median(times), 2), p99Ms: round(percentile(times, 99), 2),
      note: 'in the page, call to signed event, origin always allowed, local key; WebKit rounds performance.now() to 1 ms, so the mean is the finer figure' };
  } finally {
    await callJson(mcp, 'tab_close').catch(() => {});
    await callJson(mcp, 'tab_switch', { index: 0 }).catch(() => {});
    await panel.close();
  }
}

// ---------------------------------------------------------------------------
// Report

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

const ratio = (ours, ref) => (ours && ref ? `${(ours / ref).toFixed(2)}x` : '');
const fmt = (n, unit) => `${n.toLocaleString('en-US')} ${unit}`;

/** The rows measured against the peer on this machine, in this run. */
function peerRows(r) {
  const p = r.peer;
  if (!p) return [];
  const L = r.snapshot.large;
  return [
    [`${p.name} on this machine, this run:`, '', '', ''],
    ['... cold start to the first page opened (median)', fmt(r.coldStart.medianReadyMs, 'ms'), fmt(p.coldStart.medianReadyMs, 'ms'), ratio(r.coldStart.medianReadyMs, p.coldStart.medianReadyMs)],
    ['... cheap call p50 / p99 (SDK client; its tab list)', `${fmt(r.cheapCall.p50Ms, 'ms')} / ${fmt(r.cheapCall.p99Ms, 'ms')}`, `${fmt(p.cheapCall.p50Ms, 'ms')} / ${fmt(p.cheapCall.p99Ms, 'ms')}`, ratio(r.cheapCall.p99Ms, p.cheapCall.p99Ms)],
    ['... snapshot large.html p50; tokens', `${fmt(L.p50Ms, 'ms')}; ${fmt(L.tokens, 'tokens')}`, `${fmt(p.snapshot.large.p50Ms, 'ms')}; ${fmt(p.snapshot.large.tokens, 'tokens')}`, ratio(L.p50Ms, p.snapshot.large.p50Ms)],
    ['... process tree PSS, highest sample', fmt(r.pss.peakMiB, 'MiB'), fmt(p.pssPeakMiB, 'MiB'), ratio(r.pss.peakMiB, p.pssPeakMiB)],
  ];
}

function report(r) {
  const L = r.snapshot.large;
  const F = r.snapshot.form;
  const rows = [
    ['Measure', 'Sovereign Browser', 'Reference', 'Ratio'],
    [`Cold start (--headless) to the first page opened (median of ${r.coldStart.runs.length})`, fmt(r.coldStart.medianReadyMs, 'ms'), '', ''],
    ['Cold start to listening line (median)', fmt(r.coldStart.medianListeningMs, 'ms'), '', ''],
    [`Cheap call get_url p50, minimal client (${r.cheapCallRaw.calls} calls)`, fmt(r.cheapCallRaw.p50Ms, 'ms'), fmt(REFERENCE.cheapCallMs, 'ms'), ratio(r.cheapCallRaw.p50Ms, REFERENCE.cheapCallMs)],
    ['Cheap call get_url p99, minimal client', fmt(r.cheapCallRaw.p99Ms, 'ms'), '', ''],
    [`Cheap call get_url p50, official SDK client (${r.cheapCall.calls} calls)`, fmt(r.cheapCall.p50Ms, 'ms'), fmt(REFERENCE.cheapCallMs, 'ms'), ratio(r.cheapCall.p50Ms, REFERENCE.cheapCallMs)],
    ['Cheap call get_url p99, official SDK client', fmt(r.cheapCall.p99Ms, 'ms'), '', ''],
    ...(r.cliCall ? [[`get_url from the shell, sovereign start to result p50 (${r.cliCall.calls} runs)`, fmt(r.cliCall.p50Ms, 'ms'), '', '']] : []),
    [`Snapshot large.html p50 (${L.calls} calls)`, fmt(L.p50Ms, 'ms'), fmt(REFERENCE.snapshotLargeMs, 'ms'), ratio(L.p50Ms, REFERENCE.snapshotLargeMs)],
    ['Snapshot large.html p90', fmt(L.p90Ms, 'ms'), '', ''],
    ['Snapshot large.html first call', fmt(L.firstMs, 'ms'), '', ''],
    ...(r.loads ? [[`open large.html, to loaded, p50 / p90 (${r.loads.loads} loads)`, `${fmt(r.loads.p50Ms, 'ms')} / ${fmt(r.loads.p90Ms, 'ms')}`, '', ''],
      [`fetch() in a page, each of ${r.loads.fetches} in a row`, fmt(r.loads.fetchEachMs, 'ms'), '', '']] : []),
    ['Snapshot large.html size', `${fmt(L.chars, 'chars')} ${fmt(L.tokens, 'tokens')}`, fmt(REFERENCE.snapshotLargeTokens, 'tokens'), ratio(L.tokens, REFERENCE.snapshotLargeTokens)],
    [`Full tree of large.html (interactive: false, one part) p50 / p90 (${L.full.calls} calls)`, `${fmt(L.full.p50Ms, 'ms')} / ${fmt(L.full.p90Ms, 'ms')}`, fmt(REFERENCE.snapshotLargeMs, 'ms'), ratio(L.full.p50Ms, REFERENCE.snapshotLargeMs)],
    ['Full tree of large.html size', `${fmt(L.full.chars, 'chars')} ${fmt(L.full.tokens, 'tokens')}`, fmt(REFERENCE.snapshotLargeTokens, 'tokens'), ratio(L.full.tokens, REFERENCE.snapshotLargeTokens)],
    ['Snapshot large.html refs', fmt(L.refs, 'refs'), '(1,053 interactive on the page)', ''],
    ['Snapshot large.html tokens per ref', (L.tokens / Math.max(L.refs, 1)).toFixed(1), (REFERENCE.snapshotLargeTokens / 1053).toFixed(1), ''],
    [`Snapshot form.html p50 (${F.calls} calls)`, fmt(F.p50Ms, 'ms'), fmt(REFERENCE.snapshotFormMs, 'ms'), ratio(F.p50Ms, REFERENCE.snapshotFormMs)],
    ['Snapshot form.html p90', fmt(F.p90Ms, 'ms'), '', ''],
    ['Snapshot form.html size', `${fmt(F.chars, 'chars')} ${fmt(F.tokens, 'tokens')}`, fmt(REFERENCE.snapshotFormTokens, 'tokens'), ratio(F.tokens, REFERENCE.snapshotFormTokens)],
    ['Snapshot form.html refs', fmt(F.refs, 'refs'), '', ''],
    [`fill p50 / p90 (form.html, ${r.fill.rounds} rounds, ${r.fill.verified} verified)`, `${fmt(r.fill.p50Ms, 'ms')} / ${fmt(r.fill.p90Ms, 'ms')}`, '', ''],
    ...(r.click ? [[`Click + re-snapshot, dynamic.html p50 / p90 (${r.click.rounds} rounds, ${r.click.verified} verified)`, `${fmt(r.click.p50Ms, 'ms')} / ${fmt(r.click.p90Ms, 'ms')}`, '', ''],
    ['Click alone p50', fmt(r.click.clickP50Ms, 'ms'), '', '']] : []),
    ...(r.nostrSign ? [[`window.nostr.signEvent in the page, mean / p99 (${r.nostrSign.calls} calls)`, `${fmt(r.nostrSign.meanMs, 'ms')} / ${fmt(r.nostrSign.p99Ms, 'ms')}`, '', '']] : []),
    [`tools/list size (${r.toolsList.tools} tools; the reference has ${REFERENCE.toolsListTools})`, fmt(r.toolsList.tokens, 'tokens'), fmt(REFERENCE.toolsListTokens, 'tokens'), ratio(r.toolsList.tokens, REFERENCE.toolsListTokens)],
    ['tools/list size, 2026-07-28 (tab tools take a tab id)', fmt(r.toolsList.statelessTokens, 'tokens'), fmt(REFERENCE.toolsListTokens, 'tokens'), ratio(r.toolsList.statelessTokens, REFERENCE.toolsListTokens)],
    ['Process tree PSS, 1 tab, end of run', fmt(r.pss.finalMiB, 'MiB'), '', ''],
    [`Process tree PSS, ${r.pss.tenTabs.tabs} tabs (large.html and form.html in turn)`, fmt(r.pss.tenTabs.totalMiB, 'MiB'), '', ''],
    ['Process tree PSS, 1 tab, highest sample', fmt(r.pss.peakMiB, 'MiB'), `${fmt(REFERENCE.pssPeakMiB, 'MB')} (peak)`, ratio(r.pss.peakMiB, REFERENCE.pssPeakMiB)],
    ...peerRows(r),
  ];
  console.log(table(rows));
  console.log(`
Reference: ${REFERENCE.source}; its token counts are exact (cl100k).
Token counts are exact, cl100k_base (gpt-tokenizer).
tools/list: ${r.toolsList.tools} tools, ${r.toolsList.tokens.toLocaleString('en-US')} tokens in a session, ${r.toolsList.statelessTokens.toLocaleString('en-US')} for 2026-07-28 clients.
Ratio below 1 means Sovereign Browser is faster / smaller.
PSS samples: ${r.pss.samples.map((s) => `${s.at} ${s.totalMiB} MiB`).join(', ')}.
Processes at the end: ${r.pss.processes.map((p) => `${p.comm} ${p.pssMiB}`).join(', ')} (MiB).
With ${r.pss.tenTabs.tabs} tabs: ${Object.entries(r.pss.tenTabs.byProgram).map(([name, p]) => `${p.count} ${name} ${p.pssMiB}`).join(', ')} (MiB).
Written to bench/results.json.`);
}

// ---------------------------------------------------------------------------

async function main() {
  if (!existsSync(BIN)) {
    console.error(`bench: no binary at ${path.relative(process.cwd(), BIN)}: build it first (cargo build --release), or set SOVEREIGN_BIN`);
    process.exit(1);
  }
  for (const f of ['large.html', 'form.html']) {
    if (!existsSync(path.join(PAGES, f))) {
      console.error(`bench: ${f} not found in the benchmark pages folder (set BENCH_PAGES)`);
      process.exit(1);
    }
  }

  const cleanups = [];
  const cleanup = async () => {
    while (cleanups.length) await cleanups.pop()().catch(() => {});
  };
  process.once('SIGINT', () => { cleanup().finally(() => process.exit(130)); });

  try {
    const server = await startFixtureServer({ root: PAGES });
    cleanups.push(() => server.close());
    const formUrl = server.url('/form.html');
    const largeUrl = server.url('/large.html');

    // (1) Cold starts, the two browsers in turn; the last of each stays up.
    const runs = [];
    const peerRuns = [];
    let live;
    let peerLive;
    for (let i = 0; i < COLD_RUNS; i++) {
      const run = await coldStart(formUrl);
      runs.push({ listeningMs: round(run.listeningMs), readyMs: round(run.readyMs) });
      log(`cold start ${i + 1}/${COLD_RUNS}: listening ${round(run.listeningMs)} ms, first page opened ${round(run.readyMs)} ms`);
      if (i < COLD_RUNS - 1) {
        await run.mcp.close().catch(() => {});
        await run.browser.stop();
      } else {
        live = run;
        cleanups.push(() => run.browser.stop());
        cleanups.push(() => run.mcp.close());
      }
      if (!WITH_PEER) continue;
      const peerRun = await peerColdStart(formUrl);
      peerRuns.push({ readyMs: round(peerRun.readyMs) });
      log(`${PEER_NAME} cold start ${i + 1}/${COLD_RUNS}: first page opened ${round(peerRun.readyMs)} ms`);
      if (i < COLD_RUNS - 1) await peerRun.peer.close();
      else {
        peerLive = peerRun.peer;
        cleanups.push(() => peerRun.peer.close());
      }
    }
    // The peer's figures first, then it stops: it must not share the machine with ours.
    let peer = null;
    if (peerLive) {
      peer = await peerFigures(peerLive, largeUrl, formUrl);
      peer.coldStart = { runs: peerRuns, medianReadyMs: round(median(peerRuns.map((r) => r.readyMs))) };
      log(`${PEER_NAME}: cold start ${peer.coldStart.medianReadyMs} ms, peak PSS ${peer.pssPeakMiB} MiB, large.html snapshot p50 ${peer.snapshot.large.p50Ms} ms`);
      await peerLive.close();
    }
    const { browser, mcp } = live;
    const samples = [];
    const sample = (at) => { samples.push({ at, ...treePss(browser.pid) }); };
    await sleep(500);
    // The cold starts' web processes may still be exiting: they would share the libraries.
    for (let waited = 0; treePss(browser.pid).others > 0 && waited < 10_000; waited += 100) await sleep(100);
    sample('after start');

    // (2) Cheap calls.
    const cheapCall = await cheapCalls(mcp);
    log(`get_url p50 ${cheapCall.p50Ms} ms, p99 ${cheapCall.p99Ms} ms`);
    const cheapCallRaw = await cheapCallsRaw(browser);
    log(`get_url (raw client) p50 ${cheapCallRaw.p50Ms} ms, p99 ${cheapCallRaw.p99Ms} ms`);
    const cliCall = cliCalls(browser);
    if (cliCall) log(`get_url (sovereign command) p50 ${cliCall.p50Ms} ms, p99 ${cliCall.p99Ms} ms`);
    sample('after cheap calls');

    // (3) Snapshots.
    const large = await snapshots(mcp, largeUrl);
    log(`large.html snapshot p50 ${large.p50Ms} ms, ${large.chars} chars, ${large.refs} refs`);
    sample('after large.html snapshots');
    large.full = await fullTrees(mcp);
    log(`large.html full tree p50 ${large.full.p50Ms} ms, ${large.full.chars} chars`);
    const form = await snapshots(mcp, formUrl);
    const loads = await pageLoads(mcp, largeUrl, formUrl);
    log(`open large.html p50 ${loads.p50Ms} ms; fetch() in the page ${loads.fetchEachMs} ms each`);
    const tools = await mcp.listTools();
    const toolsList = { tools: tools.length, tokens: countTokens(JSON.stringify(tools)) };
    toolsList.statelessTokens = countTokens(JSON.stringify(await statelessToolsList(browser)));
    log(`form.html snapshot p50 ${form.p50Ms} ms, ${form.chars} chars, ${form.refs} refs`);
    sample('after form.html snapshots');
    const fill = await fills(mcp, formUrl);
    log(`fill p50 ${fill.p50Ms} ms, ${fill.verified}/${fill.rounds} verified`);
    const click = existsSync(path.join(PAGES, 'dynamic.html')) ? await clickAndSnapshot(mcp, server.url('/dynamic.html')) : null;
    if (click) log(`click + re-snapshot p50 ${click.p50Ms} ms, ${click.verified}/${click.rounds} verified`);
    const apps = await startFixtureServer();
    cleanups.push(() => apps.close());
    const nostrSign = await nostrSigning(browser, mcp, apps.url('/nostr-app.html'));
    log(`window.nostr.signEvent mean ${nostrSign.meanMs} ms, p99 ${nostrSign.p99Ms} ms`);

    const others = Math.max(...samples.map((s) => s.others));
    if (others) log(`warning: ${others} WebKit processes of other programs share libraries with the browser: its PSS reads low`);
    // (4) Memory, one tab; then ten (large.html and form.html in turn, each read once).
    const tabs = (await callJson(mcp, 'tab_list')).tabs.length;
    const last = samples[samples.length - 1];
    const tenTabs = await memoryWithTabs(browser, mcp, 10, [largeUrl, formUrl]);
    log(`PSS with ${tenTabs.tabs} tabs ${tenTabs.totalMiB} MiB`);
    const results = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGiB: round(totalmem() / 2 ** 30),
        kernel: release(),
        node: process.version,
      },
      binary: BIN.startsWith(REPO_ROOT) ? path.relative(REPO_ROOT, BIN) : 'SOVEREIGN_BIN',
      coldStart: {
        runs,
        medianListeningMs: round(median(runs.map((r) => r.listeningMs))),
        medianReadyMs: round(median(runs.map((r) => r.readyMs))),
        note: 'spawn (--headless: its own Xvfb) to the first page opened, MCP connect and login included',
      },
      cheapCall,
      cheapCallRaw,
      cliCall,
      nostrSign,
      click,
      fill,
      snapshot: { large, form, tokenNote: 'cl100k_base tokens of the text block the client receives' },
      loads,
      toolsList,
      pss: {
        tabs,
        finalMiB: last.totalMiB,
        peakMiB: Math.max(...samples.map((s) => s.totalMiB)),
        processes: last.processes,
        samples: samples.map(({ at, totalMiB }) => ({ at, totalMiB })),
        tenTabs,
        note: 'sum of Pss in /proc/PID/smaps_rollup over the browser and its descendants, its own Xvfb included',
      },
      reference: REFERENCE,
      peer,
    };
    writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
    report(results);
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error(`bench: ${err.stack || err}`);
  process.exit(1);
});
