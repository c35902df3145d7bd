#!/usr/bin/env node
// What recording costs: the reply time of a cheap call (get_url) and of a
// click followed by a full snapshot, with recording on and off (the same
// binary, started alternately, rounds interleaved), and the size the
// recordings take for 100 calls. A measurement, not a test.
//
// Usage: npm run bench:recording
//   SOVEREIGN_BIN     the binary (default: target/release/sovereign-browser)
//   BENCH_PAGES       the benchmark pages (default: ../shared/bench-pages)
//   RECORDING_ROUNDS  rounds of each mode (default 3)
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp, textResult } from '../tests/support/mcp.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const PAGES = path.resolve(REPO_ROOT, process.env.BENCH_PAGES || '../shared/bench-pages');
const ROUNDS = Math.min(10, Math.max(1, Number(process.env.RECORDING_ROUNDS) || 3));
const CHEAP_CALLS = 300;
const CLICKS = 40;
const RESULTS = fileURLToPath(new URL('./recording-results.json', import.meta.url));
const log = (msg) => process.stderr.write(`recording: ${msg}\n`);
const round = (x, digits = 2) => Number(x.toFixed(digits));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** Bytes of every file under `dir`. */
function bytesUnder(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const info = statSync(full);
    total += info.isDirectory() ? bytesUnder(full) : info.size;
  }
  return total;
}

/** One round in one mode: cheap calls, clicks with a snapshot each, and the bytes recorded. */
async function runRound(url, recording) {
  const profile = mkdtempSync(path.join(tmpdir(), 'sovereign-bench-recording-'));
  const browser = await startBrowser({
    bin: BIN,
    baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile, '--log-level', 'warn',
      ...(recording ? [] : ['--no-record'])],
  });
  const mcp = await connectMcp(browser, { name: 'bench-recording' });
  try {
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    await callJson(mcp, 'open', { url });
    for (let i = 0; i < 20; i++) await mcp.callTool('get_url', {});
    const cheap = [];
    for (let i = 0; i < CHEAP_CALLS; i++) {
      const t = performance.now();
      await mcp.callTool('get_url', {});
      cheap.push(performance.now() - t);
    }
    const first = textResult(await mcp.callTool('snapshot', { interactive: true }), 'snapshot');
    const ref = /(e\d+) button "Add item"/.exec(first)?.[1];
    if (!ref) throw new Error('no Add item button on the dynamic page');
    const clicks = [];
    for (let i = 0; i < CLICKS; i++) {
      const t = performance.now();
      await callJson(mcp, 'click', { ref });
      textResult(await mcp.callTool('snapshot', { interactive: false }), 'snapshot');
      clicks.push(performance.now() - t);
    }
    const calls = 2 + 20 + CHEAP_CALLS + 1 + 2 * CLICKS;
    await mcp.close();
    await browser.stop();
    const folder = path.join(profile, 'recordings');
    const bytes = recording ? bytesUnder(folder) : 0;
    return { cheapP50: median(cheap), cheapP99: p99(cheap), clickP50: median(clicks), bytes, calls };
  } finally {
    await browser.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  const fixtures = await startFixtureServer({ root: PAGES });
  const url = fixtures.url('/dynamic.html');
  const results = { on: [], off: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of r % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
        const round1 = await runRound(url, mode === 'on');
        results[mode].push(round1);
        log(`round ${r + 1} ${mode}: get_url p50 ${round(round1.cheapP50)} ms, click + snapshot p50 ${round(round1.clickP50)} ms`);
      }
    }
  } finally {
    await fixtures.close();
  }
  const summary = (mode) => ({
    rounds: results[mode].length,
    getUrlP50Ms: round(median(results[mode].map((x) => x.cheapP50))),
    getUrlP99Ms: round(median(results[mode].map((x) => x.cheapP99))),
    clickSnapshotP50Ms: round(median(results[mode].map((x) => x.clickP50))),
  });
  const on = results.on;
  const report = {
    date: new Date().toISOString(),
    binary: path.relative(REPO_ROOT, BIN),
    note: 'medians of per-round medians; get_url over the official TypeScript SDK client; click on dynamic.html\'s Add item, then a full snapshot',
    on: summary('on'),
    off: summary('off'),
    bytesPer100Calls: Math.round(median(on.map((x) => (x.bytes / x.calls) * 100))),
  };
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
