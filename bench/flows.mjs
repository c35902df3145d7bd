#!/usr/bin/env node
// The five-flow benchmark: the tokens (cl100k) an assistant reads and writes
// over a whole MCP session doing five everyday flows, tools/list included.
// No model runs: each flow is the calls a model makes (a snapshot to read,
// then acting on the refs it read there), and each checks from the page
// that it finished. Two catalogues are compared on the same flows:
//   families  today's default: the everyday tools listed; a flow that needs
//             a family asks tools_enable (its answer and the tools/list a
//             client reads again after list_changed count too);
//   all       every tool listed from the start (tools_enable all, not counted).
// A measurement, not a test: it exits 1 only when a flow did not finish.
//
// Usage: npm run bench:flows
//   SOVEREIGN_BIN   the binary (default: target/release/sovereign-browser;
//                   token counts do not depend on the build)
//   BENCH_PAGES     the benchmark pages (default: ../shared/bench-pages)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, connectMcp } from '../tests/support/mcp.mjs';
import { refOf } from '../tests/support/snapshot.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const PAGES = path.resolve(REPO_ROOT, process.env.BENCH_PAGES || '../shared/bench-pages');
const SHOP = path.join(REPO_ROOT, 'tests/fixtures/shop/same');
const RESULTS = fileURLToPath(new URL('./flows-results.json', import.meta.url));
const tokens = (text) => encode(text).length;

/** An MCP session that counts what a model would read and write. */
function counted(mcp) {
  const tally = { calls: 0, list: 0, args: 0, results: 0 };
  return {
    tally,
    async list() {
      const tools = await mcp.listTools();
      tally.list += tokens(JSON.stringify(tools));
      return tools;
    },
    async call(name, args = {}) {
      const result = await mcp.callTool(name, args);
      const text = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      tally.calls++;
      tally.args += tokens(JSON.stringify({ name, arguments: args }));
      tally.results += tokens(text);
      if (result.isError) throw new Error(`${name} failed: ${text}`);
      return text;
    },
  };
}

const FLOWS = {
  async signUp(s, pages) {
    await s.call('open', { url: pages.bench('/form.html') });
    const snap = await s.call('snapshot');
    await s.call('fill', { ref: refOf(snap, 'textbox', 'Full name'), value: 'Ada Lovelace' });
    await s.call('fill', { ref: refOf(snap, 'textbox', 'Email address'), value: 'ada@example.org' });
    await s.call('select', { ref: refOf(snap, 'combobox', 'Country'), value: 'Japan' });
    await s.call('check', { ref: refOf(snap, 'checkbox', 'I accept the terms') });
    await s.call('click', { ref: refOf(snap, 'button', 'Create account') });
    return (await s.call('get_text', { selector: '#status' })).includes('Submitted: Ada Lovelace');
  },
  async dynamicList(s, pages) {
    await s.call('open', { url: pages.bench('/dynamic.html') });
    const snap = await s.call('snapshot');
    await s.call('click', { ref: refOf(snap, 'button', 'Add item') });
    return /^\+ (?:e\d+ )?listitem/m.test(await s.call('snapshot', { diff: true, interactive: false }));
  },
  async bigPage(s, pages) {
    await s.call('open', { url: pages.bench('/large.html') });
    const snap = await s.call('snapshot');
    await s.call('click', { ref: refOf(snap, 'link', 'Record 1-1-3') });
    return (await s.call('get_url')).includes('#s1a1-r3');
  },
  async shop(s, pages) {
    await s.call('open', { url: pages.shop('/signin.html') });
    let snap = await s.call('snapshot');
    await s.call('fill', { ref: refOf(snap, 'textbox', 'Email'), value: 'ada@example.org' });
    await s.call('fill', { ref: refOf(snap, null, 'Password'), value: 'open sesame' });
    await s.call('click', { ref: refOf(snap, 'button', 'Sign in') });
    await s.call('wait_for_url', { url_pattern: '**/shop.html' });
    snap = await s.call('snapshot');
    await s.call('click', { ref: refOf(snap, 'button', 'Add Tea to cart') });
    await s.call('click', { ref: refOf(snap, 'link', 'Checkout') });
    snap = await s.call('snapshot');
    await s.call('fill', { ref: refOf(snap, 'textbox', 'Full name'), value: 'Ada Lovelace' });
    await s.call('select', { ref: refOf(snap, 'combobox', 'Country'), value: 'Japan' });
    await s.call('check', { ref: refOf(snap, 'checkbox', 'I accept the terms') });
    await s.call('click', { ref: refOf(snap, 'button', 'Place order') });
    return (await s.call('get_text', { selector: '#order' })).includes('ada@example.org / tea');
  },
  // A family beyond everyday browsing: which requests did the page make?
  async requests(s, pages, mode) {
    if (mode === 'families') {
      await s.call('tools_enable', { family: 'network' });
      await s.list(); // the client reads the catalogue again after list_changed
    }
    await s.call('open', { url: pages.bench('/form.html') });
    return (await s.call('network_requests')).includes('/form.html');
  },
};

async function session(mode, pages) {
  const browser = await startBrowser({
    bin: BIN,
    baseArgs: ['--headless', '--ephemeral', '--no-panel', '--port', '0', '--log-level', 'warn'],
  });
  const mcp = await connectMcp(browser, { name: `bench-flows-${mode}` });
  try {
    if (mode === 'all') await mcp.callTool('tools_enable', { family: 'all' });
    const s = counted(mcp);
    await s.list();
    const listed = s.tally.list;
    await s.call('login', { method: 'local', nsec: TEST_NSEC });
    const flows = {};
    let before = { ...s.tally };
    for (const [name, flow] of Object.entries(FLOWS)) {
      const done = await flow(s, pages, mode);
      const t = s.tally;
      flows[name] = {
        done,
        calls: t.calls - before.calls,
        tokens: t.list - before.list + t.args - before.args + t.results - before.results,
      };
      before = { ...t };
    }
    const t = s.tally;
    return { toolsList: listed, flows, total: { calls: t.calls, tokens: t.list + t.args + t.results, ...t } };
  } finally {
    await mcp.close().catch(() => {});
    await browser.stop();
  }
}

async function main() {
  const bench = await startFixtureServer({ root: PAGES });
  const shop = await startFixtureServer({ root: SHOP });
  const pages = { bench: (p) => bench.url(p), shop: (p) => shop.url(p) };
  const report = {
    date: new Date().toISOString(),
    note: 'cl100k tokens of tools/list, every call (name and arguments) and every result text; the login counts',
  };
  try {
    for (const mode of ['families', 'all']) report[mode] = await session(mode, pages);
  } finally {
    await bench.close();
    await shop.close();
  }
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log('flow            families (calls, tokens)   all (calls, tokens)');
  for (const name of Object.keys(FLOWS)) {
    const f = report.families.flows[name];
    const a = report.all.flows[name];
    console.log(`${name.padEnd(16)}${`${f.calls}, ${f.tokens}`.padEnd(27)}${a.calls}, ${a.tokens}`);
  }
  console.log(`tools/list      ${String(report.families.toolsList).padEnd(27)}${report.all.toolsList}`);
  console.log(`whole session   ${`${report.families.total.calls}, ${report.families.total.tokens}`.padEnd(27)}${report.all.total.calls}, ${report.all.total.tokens}`);
  const failed = ['families', 'all'].flatMap((m) => Object.entries(report[m].flows).filter(([, f]) => !f.done).map(([n]) => `${m}/${n}`));
  if (failed.length) {
    console.error(`flows that did not finish: ${failed.join(', ')}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
