#!/usr/bin/env node
// What routing costs a page that no route answers: opening the
// 5,000-element page and fetch() from a page, in a context that does not
// go through the routing proxy, one that does (one route, matching
// nothing), and one with 100 routes matching nothing. One browser, a
// context (and an MCP client) per mode, rounds interleaved. A
// measurement, not a test.
//
// Usage: npm run bench:routes
//   SOVEREIGN_BIN   the binary (default: target/release/sovereign-browser)
//   BENCH_PAGES     the benchmark pages (default: ../shared/bench-pages)
//   ROUTES_ROUNDS   rounds of each mode (default 5)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp } from '../tests/support/mcp.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const PAGES = path.resolve(REPO_ROOT, process.env.BENCH_PAGES || '../shared/bench-pages');
const ROUNDS = Math.min(20, Math.max(1, Number(process.env.ROUTES_ROUNDS) || 5));
const OPENS = 5;
const FETCHES = 50;
const RESULTS = fileURLToPath(new URL('./routes-results.json', import.meta.url));
const log = (msg) => process.stderr.write(`routes: ${msg}\n`);
const round = (x, digits = 2) => Number(x.toFixed(digits));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const MODES = {
  direct: 0,
  proxied: 1,
  routes100: 100,
};

/** fetch() of a small page FETCHES times, timed in the page: the median. */
const FETCH_SCRIPT = `(async () => {
  const times = [];
  for (let i = 0; i < ${FETCHES}; i++) {
    const start = performance.now();
    await (await fetch('/form.html?i=' + i + '&r=' + Math.random())).text();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
})()`;

async function main() {
  const fixtures = await startFixtureServer({ root: PAGES });
  const browser = await startBrowser({
    bin: BIN,
    baseArgs: ['--headless', '--ephemeral', '--no-panel', '--port', '0', '--log-level', 'warn', '--contexts-max', '8'],
  });
  const clients = {};
  const results = Object.fromEntries(Object.keys(MODES).map((m) => [m, { open: [], fetch: [] }]));
  try {
    for (const [mode, routes] of Object.entries(MODES)) {
      const mcp = await connectMcp(browser, { name: `bench-routes-${mode}` });
      // Logged in first (the person's context), then again in its own.
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'context_new', { name: mode });
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      for (let i = 0; i < routes; i++) {
        await callJson(mcp, 'network_route', { url: `**/never-${i}/*.json`, action: 'fulfill', body: 'x' });
      }
      clients[mode] = mcp;
    }
    const large = fixtures.url('/large.html');
    for (let r = 0; r < ROUNDS; r++) {
      const order = Object.keys(MODES);
      if (r % 2 === 1) order.reverse();
      for (const mode of order) {
        const mcp = clients[mode];
        for (let i = 0; i < OPENS; i++) {
          const start = performance.now();
          await callJson(mcp, 'open', { url: `${large}?r=${r}-${i}` });
          results[mode].open.push(performance.now() - start);
        }
        results[mode].fetch.push((await callJson(mcp, 'eval', { script: FETCH_SCRIPT })).value);
      }
      log(`round ${r + 1}: ${order.map((m) => `${m} open ${round(median(results[m].open))} ms, fetch ${round(median(results[m].fetch))} ms`).join('; ')}`);
    }
  } finally {
    for (const mcp of Object.values(clients)) await mcp.close().catch(() => {});
    await browser.stop();
    await fixtures.close();
  }
  const summary = (mode) => ({
    routes: MODES[mode],
    openLargeP50Ms: round(median(results[mode].open)),
    fetchP50Ms: round(median(results[mode].fetch)),
  });
  const report = {
    date: new Date().toISOString(),
    binary: path.relative(REPO_ROOT, BIN),
    note: `open of large.html (${OPENS} a round) timed by the MCP client; fetch() of form.html timed in the page (median of ${FETCHES} a round); medians over ${ROUNDS} interleaved rounds; direct: no routing proxy; proxied: through it, one route matching nothing; routes100: 100 routes matching nothing`,
    direct: summary('direct'),
    proxied: summary('proxied'),
    routes100: summary('routes100'),
  };
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
