#!/usr/bin/env node
// Accessible-name conformance: the Web Platform Tests accname suite, scored for
// Sovereign Browser's snapshot names and for Chromium side by side.
//
// Usage: node bench/wpt-accname.mjs
//   WPT_ACCNAME_DIR    a folder holding the WPT pages at their WPT paths
//                      (accname/name/*.html, accname/name/shadowdom/*.html, accname/*.html);
//                      default ../wpt-accname next to the repository. It is public test
//                      material and stays outside the repository; without it the script
//                      says so and exits.
//   SOVEREIGN_BIN      the binary (default: target/debug/sovereign-browser)
//   CHROMIUM_BIN       the Chromium to compare with (default: /usr/bin/chromium)
//   WPT_FILES          only pages whose path contains this text
//   WPT_RESULTS        where to write the results (default: bench/wpt-accname-results.json)
//
// Every element of a page with a data-expectedlabel attribute is one case, as WPT's
// AriaUtils.verifyLabelsBySelector makes it (wai-aria/scripts/aria-utils.js). Only the
// light DOM is searched (document.querySelectorAll); cases inside open shadow roots are
// counted as unreached (closed ones cannot be seen at all). The harness scripts the pages
// load (/resources/testharness.js, aria-utils.js...) are not served: they 404 and the
// pages' own last script throws, after the part that builds the page has run.
//
// A page script gives each case a data-wpt-n attribute, the same on both sides, then:
//   ours      snapshot {selector:'[data-wpt-n="K"]', interactive:false}: the first line is
//             the element's own when the snapshot lists it (role "name"); when it lists
//             only text, or nothing ("(no visible content)"), the name is ""
//   Chromium  DOM.querySelector + Accessibility.getPartialAXTree({fetchRelatives:false}),
//             the node's name.value (what chromedriver's Get Computed Label reads)
// Both names and the expectation are compared after ASCII whitespace (tab, LF, FF, CR,
// space) is collapsed to one space and trimmed, as aria-utils.js does to the computed
// label (a no-break space is kept). Our snapshot clips names at 100 characters with an
// ellipsis: a clipped name matches an expectation longer than that which starts with it.
// Expectations of "SPEC_AMBIGUOUS_LOG_VALUE" (the spec gives no answer) are listed but not
// scored. It builds nothing and always exits 0 (it is a measurement).
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../tests/support/browser.mjs';
import { callJson } from '../tests/support/mcp.mjs';
import { parseSnapshot } from '../tests/support/snapshot.mjs';
import { CHROMIUM_BIN, startComparison } from './comparison.mjs';

const WPT_DIR = path.resolve(process.env.WPT_ACCNAME_DIR || path.join(REPO_ROOT, '..', 'wpt-accname'));
const RESULTS = process.env.WPT_RESULTS || fileURLToPath(new URL('./wpt-accname-results.json', import.meta.url));
const NAME_MAX = 100; // the snapshot's cap on names, with an ellipsis
const AMBIGUOUS = 'SPEC_AMBIGUOUS_LOG_VALUE';

// ---------------------------------------------------------------------------
// The pages

// Every .html page under accname/ except the manual ones (*-manual.html, manual/), as WPT paths.
function testPages(root) {
  const base = path.join(root, 'accname');
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) {
        if (entry !== 'manual') walk(full);
      } else if (entry.endsWith('.html') && !entry.endsWith('-manual.html')) {
        out.push(path.relative(root, full).split(path.sep).join('/'));
      }
    }
  };
  if (existsSync(base)) walk(base);
  return out;
}

// Run in the page on both sides: number the cases, say what each expects.
const TAG_SCRIPT = `(() => {
  const cases = [...document.querySelectorAll('[data-expectedlabel]')].map((el, n) => {
    el.setAttribute('data-wpt-n', String(n));
    return {
      n,
      tag: el.localName,
      expected: el.getAttribute('data-expectedlabel'),
      testname: el.getAttribute('data-testname') || '',
    };
  });
  let unreached = 0;
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (!el.shadowRoot) continue;
      unreached += el.shadowRoot.querySelectorAll('[data-expectedlabel]').length;
      walk(el.shadowRoot);
    }
  };
  walk(document);
  return { cases, unreached };
})()`;

const selectorOf = (n) => `[data-wpt-n="${n}"]`;

// ---------------------------------------------------------------------------
// Comparison, as aria-utils.js does it

const ASCII_WHITESPACE = /[\t\n\f\r\u0020]+/g;
const normLabel = (text) => String(text ?? '').replace(ASCII_WHITESPACE, ' ').replace(/^ | $/g, '');

function nameMatches(got, expected, clips) {
  if (got === null || got === undefined) return false;
  const g = normLabel(got);
  const e = normLabel(expected);
  if (g === e) return true;
  return clips && g.length === NAME_MAX && g.endsWith('…') && e.length > NAME_MAX && e.startsWith(g.slice(0, -1));
}

// ---------------------------------------------------------------------------
// Our side

/** The selected element's name from a scoped snapshot, and the line it came from. */
function oursFromSnapshot(text) {
  const { nodes } = parseSnapshot(text);
  const top = nodes.filter((n) => n.depth === 0);
  const first = nodes[0];
  if (!first) {
    // "(no visible content)": the element is not rendered, or shows nothing.
    const body = text.split('\n').filter((l) => !/^(url|title): /.test(l)).join(' ').trim();
    return { name: '', role: null, line: body };
  }
  if (first.depth !== 0 || first.role === 'text:' || top.length > 1) {
    // The element itself is not listed: its content is.
    return { name: '', role: null, line: first.line.trim() };
  }
  return { name: first.name ?? '', role: first.role, line: first.line.trim() };
}

async function oursPage(mcp, url) {
  await callJson(mcp, 'open', { url });
  const { value } = await callJson(mcp, 'eval', { script: TAG_SCRIPT });
  const names = [];
  for (const c of value.cases) {
    const args = { selector: selectorOf(c.n), interactive: false };
    const result = await mcp.callTool('snapshot', args);
    const text = result.content?.[0]?.text ?? '';
    if (result.isError) names.push({ name: null, role: null, line: `snapshot failed: ${text}` });
    else names.push(oursFromSnapshot(text));
  }
  return { cases: value.cases, unreached: value.unreached, names };
}

// ---------------------------------------------------------------------------
// Chromium's side

async function chromiumPage(context, url) {
  const page = await context.newPage();
  try {
    await page.goto(url, { waitUntil: 'load' });
    const tagged = await page.evaluate(TAG_SCRIPT);
    const cdp = await context.newCDPSession(page);
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const names = [];
    for (const c of tagged.cases) {
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: selectorOf(c.n) });
      if (!nodeId) {
        names.push({ name: '', role: null, missing: true });
        continue;
      }
      const { node } = await cdp.send('DOM.describeNode', { nodeId });
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
      const ax = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId) ?? nodes[0];
      names.push({ name: ax?.name?.value ?? '', role: ax?.role?.value ?? null, ignored: !!ax?.ignored });
    }
    await cdp.detach().catch(() => {});
    return { cases: tagged.cases, unreached: tagged.unreached, names };
  } finally {
    await page.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------
// Main

const pct = (n, d) => (d ? ((100 * n) / d).toFixed(1) + '%' : '-');
const pad = (s, n) => String(s).padEnd(n);
const padL = (s, n) => String(s).padStart(n);
const show = (s) => JSON.stringify(s ?? '');

async function main() {
  if (!existsSync(WPT_DIR)) {
    console.log(`wpt-accname: no WPT accname pages at ${WPT_DIR}`);
    console.log('  Put the WPT files there at their WPT paths (accname/name/comp_label.html, ...),');
    console.log('  or point WPT_ACCNAME_DIR at such a folder. Nothing measured.');
    return;
  }
  const filter = process.env.WPT_FILES || '';
  const pages = testPages(WPT_DIR).filter((p) => p.includes(filter));
  if (!pages.length) {
    console.log(`wpt-accname: no accname/**/*.html pages in ${WPT_DIR}${filter ? ` matching "${filter}"` : ''}. Nothing measured.`);
    return;
  }

  const { server, mcp, context, close } = await startComparison(WPT_DIR);
  const results = [];
  try {
    for (const file of pages) {
      const url = server.url(file);
      const row = { file, cases: [] };
      try {
        const ours = await oursPage(mcp, url);
        const theirs = await chromiumPage(context, url);
        row.unreached = ours.unreached;
        if (theirs.cases.length !== ours.cases.length) {
          row.note = `the two browsers found ${ours.cases.length} and ${theirs.cases.length} cases`;
        }
        for (const c of ours.cases) {
          const o = ours.names[c.n];
          const t = theirs.cases[c.n]?.expected === c.expected ? theirs.names[c.n] : null;
          const ambiguous = c.expected === AMBIGUOUS;
          row.cases.push({
            ...c,
            ambiguous,
            ours: o.name,
            oursRole: o.role,
            oursLine: o.line,
            oursPass: !ambiguous && nameMatches(o.name, c.expected, true),
            chromium: t ? t.name : null,
            chromiumRole: t ? t.role : null,
            chromiumPass: !ambiguous && !!t && nameMatches(t.name, c.expected, false),
          });
        }
      } catch (err) {
        row.error = String(err?.stack || err);
      }
      results.push(row);
    }
  } finally {
    await close();
  }

  // --- report
  const scored = (r) => r.cases.filter((c) => !c.ambiguous);
  const width = Math.max(20, ...results.map((r) => r.file.length)) + 1;
  console.log('\nWPT accname: computed names vs data-expectedlabel\n');
  console.log(`${pad('file', width)} ${padL('cases', 5)} ${padL('ours', 5)} ${padL('chromium', 8)} ${padL('skipped', 7)}`);
  const totals = { cases: 0, ours: 0, chromium: 0, ambiguous: 0, unreached: 0, errors: 0 };
  for (const r of results) {
    if (r.error) {
      totals.errors++;
      console.log(`${pad(r.file, width)} ERROR ${r.error.split('\n')[0]}`);
      continue;
    }
    const s = scored(r);
    const ours = s.filter((c) => c.oursPass).length;
    const theirs = s.filter((c) => c.chromiumPass).length;
    const skipped = r.cases.length - s.length;
    Object.assign(r, { scored: s.length, oursPassed: ours, chromiumPassed: theirs, skipped });
    totals.cases += s.length;
    totals.ours += ours;
    totals.chromium += theirs;
    totals.ambiguous += skipped;
    totals.unreached += r.unreached ?? 0;
    const extra = [
      r.unreached ? `${r.unreached} in shadow DOM not reached` : '',
      r.note ?? '',
    ].filter(Boolean).join('; ');
    console.log(`${pad(r.file, width)} ${padL(s.length, 5)} ${padL(ours, 5)} ${padL(theirs, 8)} ${padL(skipped || '', 7)}${extra ? '  ' + extra : ''}`);
  }
  console.log(`${pad('TOTAL', width)} ${padL(totals.cases, 5)} ${padL(totals.ours, 5)} ${padL(totals.chromium, 8)} ${padL(totals.ambiguous || '', 7)}`);
  console.log(`\nOurs:     ${totals.ours}/${totals.cases} = ${pct(totals.ours, totals.cases)}`);
  console.log(`Chromium: ${totals.chromium}/${totals.cases} = ${pct(totals.chromium, totals.cases)}`);
  if (totals.ambiguous) console.log(`(${totals.ambiguous} cases expecting ${AMBIGUOUS} listed, not scored)`);
  if (totals.unreached) console.log(`(${totals.unreached} cases inside shadow roots not reached)`);
  if (totals.errors) console.log(`(${totals.errors} pages failed to run)`);

  const failures = results.flatMap((r) => r.cases.filter((c) => !c.ambiguous && !c.oursPass).map((c) => ({ file: r.file, ...c })));
  const bothFail = failures.filter((f) => !f.chromiumPass).length;
  console.log(`\nOur failures (${failures.length}; Chromium fails ${bothFail} of them too):`);
  let last = '';
  for (const f of failures) {
    if (f.file !== last) console.log(`\n  ${f.file}`);
    last = f.file;
    console.log(`    [${f.n}] ${f.testname || '(no test name)'}`);
    console.log(`        expected ${show(f.expected)}  ours ${show(f.ours)}  chromium ${show(f.chromium)}${f.chromiumPass ? '' : ' (fails too)'}`);
    if (!f.oursRole) console.log(`        our snapshot: ${f.oursLine}`);
  }
  const chromiumOnly = results.flatMap((r) => r.cases.filter((c) => !c.ambiguous && c.oursPass && !c.chromiumPass)).length;
  console.log(`\nCases we pass and Chromium fails: ${chromiumOnly}`);

  writeFileSync(RESULTS, JSON.stringify({
    when: new Date().toISOString(),
    wptDir: WPT_DIR,
    chromium: CHROMIUM_BIN,
    totals: {
      ...totals,
      oursRate: totals.cases ? totals.ours / totals.cases : null,
      chromiumRate: totals.cases ? totals.chromium / totals.cases : null,
    },
    files: results,
  }, null, 2) + '\n');
  console.log(`Results written to ${path.relative(process.cwd(), RESULTS) || RESULTS}`);
}

main().catch((err) => {
  console.error(err);
}).finally(() => {
  process.exitCode = 0;
});
