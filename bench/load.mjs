#!/usr/bin/env node
// Load check: many MCP sessions at once against one browser, for a bounded
// time, on loopback only. A measurement, not a test: it reports errors,
// latencies (p50/p99 by kind of call, and of a JSON-RPC ping running
// alongside) and the memory of the browser's process tree before and after.
//
// Usage: npm run load
//   SOVEREIGN_BIN   the binary (default: target/release/sovereign-browser)
//   LOAD_SESSIONS   concurrent MCP sessions (default 16)
//   LOAD_SECONDS    how long (default 60)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp, initializeParams, mcpPost, rpc } from '../tests/support/mcp.mjs';
import { treePss } from './pss.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const SESSIONS = Math.min(64, Math.max(1, Number(process.env.LOAD_SESSIONS) || 16));
const SECONDS = Math.min(600, Math.max(5, Number(process.env.LOAD_SECONDS) || 60));
const RESULTS = fileURLToPath(new URL('./load-results.json', import.meta.url));

const percentile = (values, p) => {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2));
};
const log = (msg) => process.stderr.write(`load: ${msg}\n`);

// What one session does, over and over: mostly cheap calls, some snapshots.
const MIX = [
  ['get_url', {}], ['get_title', {}], ['login_status', {}], ['tab_list', {}],
  ['get_text', { selector: 'h1' }], ['find_role', { role: 'button', name: 'Create account' }],
  ['snapshot', {}], ['snapshot', { interactive: false }],
];

async function main() {
  const fixtures = await startFixtureServer();
  const browser = await startBrowser({ bin: BIN });
  const clients = [];
  try {
    const first = await connectMcp(browser, { name: 'load-0' });
    clients.push(first);
    await callJson(first, 'login', { method: 'local', nsec: TEST_NSEC });
    await callJson(first, 'open', { url: fixtures.url('form.html') });
    for (let i = 1; i < SESSIONS; i++) clients.push(await connectMcp(browser, { name: `load-${i}` }));
    await new Promise((r) => setTimeout(r, 1000));
    const before = treePss(browser.pid);
    log(`${SESSIONS} sessions for ${SECONDS} s; memory before ${before.totalMiB} MiB`);

    const latencies = new Map();
    const errors = [];
    let calls = 0;
    const deadline = performance.now() + SECONDS * 1000;
    const worker = async (client, n) => {
      for (let i = n; performance.now() < deadline; i++) {
        const [tool, args] = MIX[i % MIX.length];
        const started = performance.now();
        const result = await client.callTool(tool, args).catch((e) => ({ isError: true, content: [{ text: String(e) }] }));
        const ms = performance.now() - started;
        calls += 1;
        if (result.isError) errors.push(`${tool}: ${result.content?.[0]?.text}`);
        const kind = tool === 'snapshot' ? 'snapshot' : 'cheap';
        if (!latencies.has(kind)) latencies.set(kind, []);
        latencies.get(kind).push(ms);
      }
    };
    // A JSON-RPC ping alongside, as a client checking the server is alive would.
    const pings = [];
    const init = await mcpPost(browser, rpc('initialize', initializeParams()));
    const pinger = (async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await mcpPost(browser, rpc('ping'), { sessionId: init.sessionId });
        pings.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await Promise.all([...clients.map((c, n) => worker(c, n)), pinger]);
    const after = treePss(browser.pid);

    const kinds = Object.fromEntries([...latencies].map(([kind, ms]) => [kind, {
      calls: ms.length, p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99),
    }]));
    const results = {
      date: new Date().toISOString(),
      sessions: SESSIONS,
      seconds: SECONDS,
      calls,
      callsPerSecond: Number((calls / SECONDS).toFixed(1)),
      errors: errors.length,
      firstErrors: errors.slice(0, 5),
      latency: kinds,
      ping: { count: pings.length, p50Ms: percentile(pings, 50), p99Ms: percentile(pings, 99) },
      memoryMiB: { before: before.totalMiB, after: after.totalMiB },
    };
    writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
    console.log(`${SESSIONS} sessions, ${SECONDS} s: ${calls} calls (${results.callsPerSecond}/s), ${errors.length} errors`);
    for (const [kind, k] of Object.entries(kinds)) console.log(`  ${kind}: ${k.calls} calls, p50 ${k.p50Ms} ms, p99 ${k.p99Ms} ms`);
    console.log(`  ping alongside: p50 ${results.ping.p50Ms} ms, p99 ${results.ping.p99Ms} ms`);
    console.log(`  memory (PSS of the process tree): ${before.totalMiB} MiB before, ${after.totalMiB} MiB after`);
    console.log('Written to bench/load-results.json.');
    if (errors.length) process.exitCode = 1;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await browser.stop();
    await fixtures.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
