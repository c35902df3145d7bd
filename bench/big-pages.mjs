#!/usr/bin/env node
// How the snapshot grows with the page: the 5,000-element benchmark page,
// the generated 20,000-element fixture (tests/fixtures/big-page.html) and
// the toolchain's own std::vec::Vec documentation (about 16,000 elements,
// served from the Rust toolchain's docs on this machine, never committed).
// For each: its element and control counts, and the p50 time of the first
// part (the default snapshot), the whole tree in one answer, the outline,
// and every part from the first to the last. A measurement, not a test.
//
// Usage: npm run bench:big-pages
//   SOVEREIGN_BIN   the binary (default: target/release/sovereign-browser)
//   BENCH_PAGES     the benchmark pages (default: ../shared/bench-pages)
//   RUST_DOCS       the toolchain's HTML docs (default: `rustc --print sysroot`/share/doc/rust/html)
//   BIG_ROUNDS      timed calls of each kind (default 5)
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, callJson, callText, connectMcp } from '../tests/support/mcp.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const PAGES = path.resolve(REPO_ROOT, process.env.BENCH_PAGES || '../shared/bench-pages');
const ROUNDS = Math.min(20, Math.max(1, Number(process.env.BIG_ROUNDS) || 5));
const RESULTS = fileURLToPath(new URL('./big-pages-results.json', import.meta.url));
const log = (msg) => process.stderr.write(`big-pages: ${msg}\n`);
const round = (x, digits = 1) => Number(x.toFixed(digits));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const CLOSING = /\n\[\.\.\. \d+ more lines, \d+ refs: snapshot \{after: "([^"]+)"/;

function rustDocs() {
  if (process.env.RUST_DOCS) return process.env.RUST_DOCS;
  try {
    const sysroot = execFileSync('rustc', ['--print', 'sysroot'], { encoding: 'utf8' }).trim();
    return path.join(sysroot, 'share/doc/rust/html');
  } catch {
    return null;
  }
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

/** Every part from the first to the last: [ms, parts]. */
async function allParts(mcp) {
  return timed(async () => {
    let after;
    for (let parts = 1; ; parts++) {
      const text = await callText(mcp, 'snapshot', after ? { after } : {});
      const closing = text.match(CLOSING);
      if (!closing) return parts;
      after = closing[1];
    }
  });
}

async function measure(mcp, url) {
  await callJson(mcp, 'open', { url });
  const [elements, controls] = (await callJson(mcp, 'eval', {
    script: "[document.getElementsByTagName('*').length, document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]').length]",
  })).value;
  const times = { first: [], whole: [], outline: [], parts: [] };
  let wholeChars = 0;
  let parts = 0;
  for (let r = 0; r < ROUNDS; r++) {
    times.first.push((await timed(() => callText(mcp, 'snapshot', {})))[0]);
    const [ms, whole] = await timed(() => callText(mcp, 'snapshot', { max_chars: 4_000_000 }));
    times.whole.push(ms);
    wholeChars = whole.length;
    times.outline.push((await timed(() => callText(mcp, 'snapshot', { outline: true })))[0]);
    const [partsMs, count] = await allParts(mcp);
    times.parts.push(partsMs);
    parts = count;
  }
  return {
    elements,
    controls,
    firstPartP50Ms: round(median(times.first)),
    wholeP50Ms: round(median(times.whole)),
    wholeChars,
    outlineP50Ms: round(median(times.outline)),
    parts,
    allPartsP50Ms: round(median(times.parts)),
  };
}

async function main() {
  const servers = [await startFixtureServer({ root: PAGES }),
    await startFixtureServer({ root: path.join(REPO_ROOT, 'tests/fixtures') })];
  const pages = {
    'bench-pages/large.html': servers[0].url('/large.html'),
    'tests/fixtures/big-page.html': servers[1].url('/big-page.html'),
  };
  const docs = rustDocs();
  if (docs && existsSync(path.join(docs, 'std/vec/struct.Vec.html'))) {
    servers.push(await startFixtureServer({ root: docs }));
    pages['std/vec/struct.Vec.html (toolchain docs)'] = servers[2].url('/std/vec/struct.Vec.html');
  } else {
    log('no toolchain docs found: std::vec::Vec is left out (set RUST_DOCS)');
  }
  const browser = await startBrowser({
    bin: BIN,
    baseArgs: ['--headless', '--ephemeral', '--no-panel', '--port', '0', '--log-level', 'warn'],
  });
  const mcp = await connectMcp(browser, { name: 'bench-big-pages' });
  const results = {};
  try {
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    for (const [name, url] of Object.entries(pages)) {
      results[name] = await measure(mcp, url);
      log(`${name}: ${JSON.stringify(results[name])}`);
    }
  } finally {
    await mcp.close().catch(() => {});
    await browser.stop();
    for (const server of servers) await server.close();
  }
  const report = {
    date: new Date().toISOString(),
    binary: path.relative(REPO_ROOT, BIN),
    note: `times taken by the MCP client, medians of ${ROUNDS}; first part: snapshot {} (60,000 characters at most); whole: max_chars 4,000,000; parts: every part from the first to the last (their count)`,
    pages: results,
  };
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
