#!/usr/bin/env node
// Pages that fight automation (bench/fight-pages/): for each, what an input did (hit the
// target, waited for it, or failed naming what covered it), how long it took, and what
// the page saw. Prints a table and writes bench/actionability-results.json.
//
// Usage: node bench/actionability.mjs
//   SOVEREIGN_BIN   the binary (default: target/release/sovereign-browser)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { FIGHT_SCENARIOS } from './fight-pages/scenarios.mjs';
import { TEST_NSEC, callJson, connectMcp } from '../tests/support/mcp.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const RESULTS = fileURLToPath(new URL('./actionability-results.json', import.meta.url));
const PAGES = fileURLToPath(new URL('./fight-pages/', import.meta.url));

const server = await startFixtureServer({ root: PAGES });
const browser = await startBrowser({ bin: BIN });
const mcp = await connectMcp(browser);
await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
const rows = [];
try {
  for (const scenario of FIGHT_SCENARIOS) {
    await callJson(mcp, 'open', { url: server.url(`/${scenario.page}`) });
    const started = performance.now();
    const outcome = await scenario.run(mcp);
    const ms = Math.round(performance.now() - started);
    rows.push({ page: scenario.page, action: scenario.action, ms, ...outcome });
    process.stderr.write(`actionability: ${scenario.page}: ${outcome.did} in ${ms} ms\n`);
  }
} finally {
  await mcp.close().catch(() => {});
  await browser.stop();
  await server.close();
}
writeFileSync(RESULTS, JSON.stringify({ when: new Date().toISOString(), rows }, null, 2) + '\n');
console.log('| Page | Action | What it did | ms | The page saw |');
console.log('|---|---|---|---:|---|');
for (const r of rows) console.log(`| ${r.page} | ${r.action} | ${r.did} | ${r.ms} | ${r.saw} |`);
