#!/usr/bin/env node
// Soak: a long run of mixed agents' work against one browser, to see that
// nothing crashes, what fails and with which code, how the latencies hold,
// and that the browser process's memory levels off. A measurement, not a
// test: it reports; only a crash of the browser makes it exit non-zero.
//
// Agents (half in the person's context, each in a tab of its own; half in
// contexts they open, use and close again and again) loop over: a form of
// the corpus (tests/support/form-shapes.mjs) submitted one of the four
// ways, a snapshot of the 5,000-element page, cheap calls, a download, a
// route answering a page, and a page that floods the console.
//
// Usage: npm run soak
//   SOVEREIGN_BIN   the binary (default: target/release/sovereign-browser)
//   SOAK_MINUTES    how long (default 30)
//   SOAK_AGENTS     agents at once (default 16)
//   BENCH_PAGES     the benchmark pages folder (default: ../shared/bench-pages)
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { SHAPES, WAYS, startSite } from '../tests/support/form-shapes.mjs';
import { TEST_NSEC, connectMcp } from '../tests/support/mcp.mjs';
import { treePss } from './pss.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const MINUTES = Math.max(0.5, Number(process.env.SOAK_MINUTES) || 30);
const AGENTS = Math.min(64, Math.max(2, Number(process.env.SOAK_AGENTS) || 16));
const PAGES = path.resolve(REPO_ROOT, process.env.BENCH_PAGES || '../shared/bench-pages');
const FIXTURES = path.join(REPO_ROOT, 'tests/fixtures');
const RESULTS = fileURLToPath(new URL('./soak-results.json', import.meta.url));
const SAMPLE_EVERY_MS = 30_000;

const log = (msg) => process.stderr.write(`soak: ${msg}\n`);
const percentile = (values, p) => {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2));
};

/** VmRSS of one process, in MiB (null once it is gone). */
function rssMiB(pid) {
  try {
    const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number((kib / 1024).toFixed(1));
  } catch {
    return null;
  }
}

/** A page that writes to the console without end, in bursts. */
const FLOOD = `<!doctype html><title>Flood</title><p id="flood">flooding</p><script>
let n = 0;
setInterval(() => { for (let i = 0; i < 200; i++) console.log('flood ' + (n++) + ' ' + 'x'.repeat(200)); }, 50);
</script>`;

async function main() {
  const extra = mkdtempSync(path.join(tmpdir(), 'sovereign-soak-'));
  writeFileSync(path.join(extra, 'flood.html'), FLOOD);
  const fixtures = await startFixtureServer({ root: [FIXTURES, PAGES, extra] });
  const site = await startSite();
  const browser = await startBrowser({ bin: BIN, args: ['--contexts-max', String(AGENTS)] });
  const clients = [];
  const errors = new Map();
  const firstMessage = new Map();
  const latency = { cheap: [], snapshot: [], form: [] };
  const memory = [];
  const counts = { calls: 0, forms: 0, snapshots: 0, downloads: 0, routes: 0, floods: 0, contexts: 0 };
  let crashed = null;
  browser.exited.then((how) => { crashed ??= how; });
  const deadline = performance.now() + MINUTES * 60_000;
  const running = () => performance.now() < deadline && !crashed;

  /** One call: timed, its error counted by code; the result or null. */
  const call = async (client, tool, args, kind = null) => {
    const started = performance.now();
    let result;
    try {
      result = await client.callTool(tool, args, { timeout: 120_000 });
    } catch (e) {
      result = { isError: true, structuredContent: { error: { code: `CLIENT: ${String(e.message || e).slice(0, 60)}` } } };
    }
    counts.calls += 1;
    if (kind) latency[kind].push(performance.now() - started);
    if (result.isError) {
      const code = result.structuredContent?.error?.code ?? 'UNKNOWN';
      const key = `${tool}: ${code}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
      if (!firstMessage.has(key)) firstMessage.set(key, `${JSON.stringify(args).slice(0, 120)} -> ${String(result.content?.[0]?.text).slice(0, 300)}`);
      return null;
    }
    return result;
  };

  let unique = 0;
  const shapes = Object.keys(SHAPES).filter((s) => s !== 'many');
  const ways = Object.keys(WAYS);
  /** The tasks an agent cycles through, each a few calls. */
  const tasks = [
    async (c) => { // a form of the corpus, one of the four ways
      const shape = shapes[unique % shapes.length];
      const way = ways[Math.floor(unique / shapes.length) % ways.length];
      const id = `soak-${unique++}`;
      if (!await call(c, 'open', { url: site.url(`/form/${shape}?case=${id}`) })) return;
      const started = performance.now();
      const act = (tool, args) => call(c, tool, args).then((r) => r && JSON.parse(r.content[0].text));
      await WAYS[way](act, SHAPES[shape]).catch(() => {});
      await call(c, 'wait_for_text', { text: id, timeout: 10_000 });
      latency.form.push(performance.now() - started);
      counts.forms += 1;
    },
    async (c) => { // the 5,000-element page, whole and interactive
      if (!await call(c, 'open', { url: fixtures.url('/large.html') })) return;
      await call(c, 'snapshot', {}, 'snapshot');
      await call(c, 'snapshot', { interactive: false, max_chars: 200_000 }, 'snapshot');
      counts.snapshots += 2;
    },
    async (c) => { // cheap calls
      for (const tool of ['get_url', 'get_title', 'tab_list', 'login_status', 'get_url']) await call(c, tool, {}, 'cheap');
    },
    async (c) => { // a download
      const name = `soak-${unique++}.bin`;
      if (await call(c, 'open', { url: fixtures.url(`/net/download?name=${name}&size=65536`) })) counts.downloads += 1;
    },
    async (c) => { // a route answers a page
      const at = fixtures.url(`/routed-${unique++}.html`);
      if (!await call(c, 'network_route', { url: at, action: 'fulfill', body: '<title>Routed</title><h1>routed</h1>', headers: { 'content-type': 'text/html' }, times: 1 })) return;
      await call(c, 'open', { url: at });
      await call(c, 'get_text', { selector: 'h1' }, 'cheap');
      counts.routes += 1;
    },
    async (c) => { // a page that floods the console
      if (!await call(c, 'open', { url: fixtures.url('/flood.html') })) return;
      await call(c, 'console', { limit: 20 }, 'cheap');
      await call(c, 'console', { limit: 20, clear: true }, 'cheap');
      counts.floods += 1;
    },
  ];

  const agent = async (c, n) => {
    const inContexts = n % 2 === 1;
    let i = n;
    while (running()) {
      let context = null;
      if (inContexts) {
        const opened = await call(c, 'context_new', {});
        if (opened) {
          context = JSON.parse(opened.content[0].text).context;
          counts.contexts += 1;
          await call(c, 'login', { method: 'local', nsec: TEST_NSEC });
        }
      } else if (!await call(c, 'tab_new', {})) {
        continue;
      }
      // A context (or a tab) for a round of six tasks, then a new one.
      for (let t = 0; t < tasks.length && running(); t++) await tasks[i++ % tasks.length](c);
      if (context) await call(c, 'context_close', { context });
      else await call(c, 'tab_close', {});
    }
  };

  try {
    const first = await connectMcp(browser, { name: 'soak-0' });
    clients.push(first);
    await call(first, 'login', { method: 'local', nsec: TEST_NSEC });
    for (let i = 1; i < AGENTS; i++) clients.push(await connectMcp(browser, { name: `soak-${i}` }));
    const started = performance.now();
    const sample = () => {
      const at = Number(((performance.now() - started) / 60_000).toFixed(2));
      memory.push({ minute: at, browserRssMiB: rssMiB(browser.pid), treePssMiB: treePss(browser.pid).totalMiB });
    };
    sample();
    log(`${AGENTS} agents for ${MINUTES} min; browser ${memory[0].browserRssMiB} MiB RSS`);
    const sampler = setInterval(() => {
      sample();
      const last = memory.at(-1);
      log(`${last.minute} min: ${counts.calls} calls, browser ${last.browserRssMiB} MiB RSS, tree ${last.treePssMiB} MiB PSS, ${[...errors.values()].reduce((a, b) => a + b, 0)} errors`);
    }, SAMPLE_EVERY_MS);
    await Promise.all(clients.map((c, n) => agent(c, n)));
    clearInterval(sampler);
    if (!crashed) sample();

    const results = {
      date: new Date().toISOString(),
      minutes: MINUTES,
      agents: AGENTS,
      crashes: crashed ? 1 : 0,
      crash: crashed,
      counts,
      errorsByCode: Object.fromEntries([...errors].sort((a, b) => b[1] - a[1])),
      firstErrors: Object.fromEntries(firstMessage),
      latencyMs: Object.fromEntries(Object.entries(latency).map(([kind, ms]) => [kind, {
        calls: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99),
      }])),
      memory,
    };
    writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
    console.log(`${AGENTS} agents, ${MINUTES} min: ${counts.calls} calls, crashes ${results.crashes}`);
    console.log(`  ${counts.forms} forms, ${counts.snapshots} snapshots of the 5k page, ${counts.downloads} downloads, ${counts.routes} routed pages, ${counts.floods} console floods, ${counts.contexts} contexts`);
    for (const [kind, k] of Object.entries(results.latencyMs)) console.log(`  ${kind}: ${k.calls} calls, p50 ${k.p50} ms, p99 ${k.p99} ms`);
    console.log(`  errors: ${JSON.stringify(results.errorsByCode)}`);
    for (const [key, message] of firstMessage) console.log(`    first ${key}: ${message}`);
    const rss = memory.map((m) => m.browserRssMiB);
    console.log(`  browser RSS (MiB): start ${rss[0]}, min ${Math.min(...rss)}, max ${Math.max(...rss)}, end ${rss.at(-1)}`);
    console.log('Written to bench/soak-results.json.');
    if (crashed) process.exitCode = 1;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await browser.stop();
    await site.close();
    await fixtures.close();
    rmSync(extra, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
