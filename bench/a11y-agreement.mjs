#!/usr/bin/env node
// Accessibility agreement check: how well the interactive snapshot of Sovereign Browser
// agrees with an independent implementation, Chromium's accessibility tree.
//
// Usage: npm run a11y
//   SOVEREIGN_BIN      the binary (default: target/debug/sovereign-browser)
//   CHROMIUM_BIN       the Chromium to compare with (default: /usr/bin/chromium)
//   A11Y_PAGES         only pages whose file name contains this text
//   A11Y_RESULTS       where to write the results (default: bench/a11y-results.json)
//
// For every page in bench/a11y/ it collects (role, name) pairs on both sides:
//   ours      every line of `snapshot {interactive:true}` that starts with its ref (eN)
//   Chromium  the nodes of Accessibility.getFullAXTree that are not ignored and have an
//             interactive role (see CHROMIUM_ROLES and chromiumPairs below)
// and compares them as multisets: matched = size of the intersection,
// agreement = matched / max(ours, chromium). The overall figure is
// sum(matched) / sum(max). It builds nothing and always exits 0 (it is a measurement);
// results go to bench/a11y-results.json.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callJson, callText } from '../tests/support/mcp.mjs';
import { parseSnapshot } from '../tests/support/snapshot.mjs';
import { startComparison } from './comparison.mjs';

const PAGES_DIR = fileURLToPath(new URL('./a11y/', import.meta.url));
const RESULTS = process.env.A11Y_RESULTS || fileURLToPath(new URL('./a11y-results.json', import.meta.url));
const TARGET = 0.98;
const NAME_MAX = 100; // the snapshot's cap on names, with an ellipsis

// ---------------------------------------------------------------------------
// Normalisation, the same on both sides

function normName(text) {
  const t = String(text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > NAME_MAX ? t.slice(0, NAME_MAX - 1) + '…' : t;
}

const key = (p) => `${p.role}\u0000${p.name}`;
const show = (p) => `${p.role} "${p.name}"`;

// ---------------------------------------------------------------------------
// Chromium's side
//
// Roles kept as they are: the ARIA widget roles a user can operate.
// `listbox` is kept too (the snapshot lists list boxes with a ref), and `option` when
// it is a choice of a listbox or of a <select> drop-down (combobox > MenuListPopup >
// MenuListOption): agents need to see the choices, and the snapshot lists them (a
// listbox's option elements with refs, a <select>'s on its options line).
const CHROMIUM_ROLES = new Set([
  'link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox',
  'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'treeitem', 'option',
]);

// Chromium's internal role names that stand for an ARIA widget role.
const ROLE_MAP = {
  DisclosureTriangle: 'button', // <summary>
  MenuListOption: 'option', // a <select> drop-down's option
  comboBoxSelect: 'combobox',
  ComboBox: 'combobox',
  PopUpButton: 'combobox',
  comboBoxMenuButton: 'combobox',
  textField: 'textbox',
  TextField: 'textbox',
  searchBox: 'searchbox',
  toggleButton: 'button',
  ToggleButton: 'button',
  // Inputs HTML-AAM gives no ARIA role (date, time, datetime-local, month, week, color).
  // Chromium exposes them with internal roles and builds them from user-agent shadow parts
  // (spin buttons per field, a picker button), which are not the page's own elements.
  // They count as one 'textbox' each, the role the snapshot (and Playwright's role rules)
  // give them, and everything under them is skipped.
  Date: 'textbox',
  DateTime: 'textbox',
  InputTime: 'textbox',
  ColorWell: 'textbox',
};
const ATOMIC_CONTROLS = new Set(['Date', 'DateTime', 'InputTime', 'ColorWell']);

// Roles known to be non-interactive (or structural/internal): dropped silently.
// Any other role met is dropped too but printed, so the mapping stays honest.
const KNOWN_NON_INTERACTIVE = new Set([
  'RootWebArea', 'StaticText', 'InlineTextBox', 'LineBreak', 'none', 'generic', 'paragraph',
  'heading', 'list', 'listitem', 'ListMarker', 'navigation', 'main', 'banner', 'contentinfo',
  'complementary', 'region', 'form', 'search', 'group', 'image', 'img', 'table', 'row', 'cell',
  'columnheader', 'rowheader', 'rowgroup', 'LayoutTable', 'LayoutTableRow', 'LayoutTableCell',
  'LayoutTableColumn', 'caption', 'Caption', 'article', 'figure', 'FigureCaption', 'dialog',
  'separator', 'toolbar', 'tablist', 'tabpanel', 'menubar', 'menu', 'radiogroup', 'tree',
  'grid', 'gridcell', 'MenuListPopup', 'LabelText', 'Legend', 'time', 'emphasis',
  'strong', 'code', 'Abbr', 'mark', 'Section', 'SectionWithoutName', 'status', 'term',
  'definition', 'blockquote', 'Pre', 'superscript', 'subscript', 'DescriptionList',
  'DescriptionListTerm', 'DescriptionListDetail', 'Iframe', 'IframePresentational',
  'graphics-document', 'graphics-symbol', 'SvgRoot', 'Canvas', 'progressbar', 'meter',
  'Details', 'Summary', 'insertion', 'deletion', 'Ruby', 'RubyAnnotation', 'Unknown',
  'alert', 'log', 'note', 'Video', 'Audio',
  'Label', 'Figcaption', 'Footer', 'Header', 'HeaderAsNonLandmark', 'FooterAsNonLandmark', 'sectionheader',
  'sectionfooter', 'contentinsertion', 'Emphasis', 'Strong', 'Code',
]);

/**
 * (role, name) pairs from Chromium's full AX tree.
 * Besides CHROMIUM_ROLES (after ROLE_MAP), two cases for elements without a widget role,
 * mirroring what the snapshot lists:
 *  - an editing host (a contenteditable root: 'generic' with editable=richtext whose
 *    parent is not editable) counts as 'textbox' (Chromium exposes no textbox role for it;
 *    platform APIs present it as editable text);
 *  - any other focusable 'generic' (e.g. <div tabindex=0>) counts as 'generic', with the
 *    name Chromium gives it (often "", since ARIA gives generic no name from content).
 */
function chromiumPairs(nodes, unknownRoles) {
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const prop = (n, name) => n.properties?.find((p) => p.name === name)?.value?.value;
  const rawRole = (n) => n.role?.value ?? '';
  const insideAtomic = (n) => {
    for (let p = byId.get(n.parentId); p; p = byId.get(p.parentId)) {
      if (ATOMIC_CONTROLS.has(rawRole(p))) return true;
    }
    return false;
  };
  const pairs = [];
  for (const n of nodes) {
    if (n.ignored) continue;
    const raw = rawRole(n);
    if (insideAtomic(n)) continue;
    let role = ROLE_MAP[raw] ?? raw;
    if (role === 'option') {
      // keep the choices of a listbox or a <select> drop-down
      let keep = false;
      for (let p = byId.get(n.parentId); p; p = byId.get(p.parentId)) {
        const r = rawRole(p);
        if (r === 'listbox' || r === 'MenuListPopup') { keep = true; break; }
        if (r === 'combobox' || ROLE_MAP[r] === 'combobox') break;
      }
      if (!keep) continue;
    } else if (!CHROMIUM_ROLES.has(role)) {
      if (role === 'generic' || role === 'none' || role === 'group' || role === 'paragraph') {
        const editable = prop(n, 'editable');
        const parent = byId.get(n.parentId);
        if (editable === 'richtext' && !(parent && prop(parent, 'editable'))) {
          role = 'textbox';
        } else if (role === 'generic' && prop(n, 'focusable') === true) {
          role = 'generic';
        } else {
          continue;
        }
      } else {
        if (!KNOWN_NON_INTERACTIVE.has(raw)) unknownRoles.set(raw, (unknownRoles.get(raw) ?? 0) + 1);
        continue;
      }
    }
    pairs.push({ role, name: normName(n.name?.value) });
  }
  return pairs;
}

// ---------------------------------------------------------------------------
// Our side

function oursPairs(text) {
  return parseSnapshot(text).nodes
    .filter((n) => n.ref || (n.choice && !n.suggested))
    .map((n) => ({ role: n.role, name: normName(n.name ?? '') }));
}

// ---------------------------------------------------------------------------
// Comparison

function compare(ours, theirs) {
  const counts = new Map();
  for (const p of theirs) counts.set(key(p), (counts.get(key(p)) ?? 0) + 1);
  const oursOnly = [];
  let matched = 0;
  for (const p of ours) {
    const c = counts.get(key(p)) ?? 0;
    if (c > 0) { counts.set(key(p), c - 1); matched++; } else oursOnly.push(p);
  }
  const chromiumOnly = [];
  const left = new Map(counts);
  for (const p of theirs) {
    const c = left.get(key(p)) ?? 0;
    if (c > 0) { left.set(key(p), c - 1); chromiumOnly.push(p); }
  }
  // Pair leftovers with the same name: the element is found on both sides, the role differs.
  const roleDiffers = [];
  const restOurs = [];
  const pool = [...chromiumOnly];
  for (const p of oursOnly) {
    const i = pool.findIndex((q) => q.name === p.name && p.name !== '');
    if (i >= 0) { roleDiffers.push({ name: p.name, ours: p.role, chromium: pool[i].role }); pool.splice(i, 1); }
    else restOurs.push(p);
  }
  // Then leftovers with the same role, in page order: likely one element named differently.
  const nameDiffers = [];
  const restOurs2 = [];
  for (const p of restOurs) {
    const i = pool.findIndex((q) => q.role === p.role);
    if (i >= 0) { nameDiffers.push({ role: p.role, ours: p.name, chromium: pool[i].name }); pool.splice(i, 1); }
    else restOurs2.push(p);
  }
  const denom = Math.max(ours.length, theirs.length);
  return {
    ours: ours.length,
    chromium: theirs.length,
    matched,
    agreement: denom ? matched / denom : 1,
    oursOnly,
    chromiumOnly,
    roleDiffers,
    nameDiffers,
    oursOnlyUnpaired: restOurs2,
    chromiumOnlyUnpaired: pool,
  };
}

// ---------------------------------------------------------------------------
// Main

const pct = (x) => (100 * x).toFixed(1) + '%';
const pad = (s, n) => String(s).padEnd(n);
const padL = (s, n) => String(s).padStart(n);

async function main() {
  const filter = process.env.A11Y_PAGES || '';
  const pages = readdirSync(PAGES_DIR).filter((f) => f.endsWith('.html') && f.includes(filter)).sort();
  if (!pages.length) {
    console.log(`no pages in ${path.relative(process.cwd(), PAGES_DIR) || PAGES_DIR}`);
    return;
  }

  const { server, mcp, context, close } = await startComparison(PAGES_DIR);
  const results = [];
  const unknownRoles = new Map();
  try {
    for (const file of pages) {
      const url = server.url(file);
      const row = { page: file };
      try {
        await callJson(mcp, 'open', { url });
        const text = await callText(mcp, 'snapshot', { interactive: true });
        const ours = oursPairs(text);

        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'load' });
        const cdp = await page.context().newCDPSession(page);
        const { nodes } = await cdp.send('Accessibility.getFullAXTree');
        const theirs = chromiumPairs(nodes, unknownRoles);
        await cdp.detach().catch(() => {});
        await page.close();

        Object.assign(row, compare(ours, theirs), { oursList: ours, chromiumList: theirs });
      } catch (err) {
        row.error = String(err?.stack || err);
      }
      results.push(row);
    }
  } finally {
    await close();
  }

  // --- report
  console.log('\nAccessibility agreement: Sovereign snapshot vs Chromium AX tree\n');
  console.log(`${pad('page', 28)} ${padL('ours', 5)} ${padL('chromium', 8)} ${padL('matched', 7)} ${padL('agree', 7)}`);
  let sumMatched = 0;
  let sumMax = 0;
  for (const r of results) {
    if (r.error) {
      console.log(`${pad(r.page, 28)} ERROR ${r.error.split('\n')[0]}`);
      continue;
    }
    sumMatched += r.matched;
    sumMax += Math.max(r.ours, r.chromium);
    console.log(`${pad(r.page, 28)} ${padL(r.ours, 5)} ${padL(r.chromium, 8)} ${padL(r.matched, 7)} ${padL(pct(r.agreement), 7)}`);
  }
  const overall = sumMax ? sumMatched / sumMax : 1;
  console.log(`${pad('OVERALL', 28)} ${padL('', 5)} ${padL('', 8)} ${padL(sumMatched, 7)} ${padL(pct(overall), 7)}  (of ${sumMax})`);

  console.log('\nMismatches (role differs: same name, other role; name differs: same role, paired in page order):');
  for (const r of results) {
    if (r.error || (!r.oursOnly.length && !r.chromiumOnly.length)) continue;
    console.log(`\n  ${r.page}`);
    for (const d of r.roleDiffers) console.log(`    role differs: "${d.name}"  ours=${d.ours}  chromium=${d.chromium}`);
    for (const d of r.nameDiffers) console.log(`    name differs: ${d.role}  ours="${d.ours}"  chromium="${d.chromium}"`);
    for (const p of r.oursOnlyUnpaired) console.log(`    ours only:     ${show(p)}`);
    for (const p of r.chromiumOnlyUnpaired) console.log(`    chromium only: ${show(p)}`);
  }

  // Totals by kind, to see which rule to fix first.
  const kinds = new Map();
  const bump = (k) => kinds.set(k, (kinds.get(k) ?? 0) + 1);
  for (const r of results) {
    if (r.error) continue;
    for (const d of r.roleDiffers) bump(`role differs: ours ${d.ours} / chromium ${d.chromium}`);
    for (const d of r.nameDiffers) bump(`name differs: ${d.role}${d.chromium === '' ? ' (Chromium has no name)' : d.ours === '' ? ' (ours has no name)' : ''}`);
    for (const p of r.oursOnlyUnpaired) bump(`ours only: ${p.role}`);
    for (const p of r.chromiumOnlyUnpaired) bump(`chromium only: ${p.role}`);
  }
  if (kinds.size) {
    console.log('\nMismatch kinds (count):');
    for (const [k, n] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${padL(n, 4)}  ${k}`);
  }
  if (unknownRoles.size) {
    console.log('\nChromium roles met that the mapping does not know (treated as non-interactive):');
    for (const [role, n] of unknownRoles) console.log(`  ${role} (${n})`);
  }

  const reached = overall >= TARGET;
  console.log(`\nOverall agreement ${pct(overall)}: ${reached ? 'REACHES' : 'DOES NOT reach'} the ${pct(TARGET)} target.`);

  writeFileSync(RESULTS, JSON.stringify({
    when: new Date().toISOString(),
    target: TARGET,
    overall,
    reached,
    matched: sumMatched,
    denominator: sumMax,
    unknownChromiumRoles: Object.fromEntries(unknownRoles),
    mismatchKinds: Object.fromEntries(kinds),
    pages: results,
  }, null, 2) + '\n');
  console.log(`Results written to ${path.relative(process.cwd(), RESULTS) || RESULTS}`);
}

main().catch((err) => {
  console.error(err);
}).finally(() => {
  process.exitCode = 0;
});
