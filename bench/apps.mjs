#!/usr/bin/env node
// The application benchmark: ten everyday tasks in four real open-source web
// applications (Django's admin, Datasette, Wagtail, Trac; the tests' own,
// tests/support/real_apps.mjs), done by a scripted agent through this
// browser and through Playwright MCP (0.0.83, driving the system Chromium).
// The agent reads only what a model reads: the snapshot's text, and in it
// roles and names; it picks from the last snapshot it has (Playwright MCP
// sends one with each action's answer; this browser's actions answer without
// one, so after a click the agent takes a new snapshot) and takes a new one
// when what it wants is not there. Each task is checked from the
// application's side (its database or its JSON API), never from the agent's
// reading. Per task and in all: success, calls, tokens (cl100k) of every
// tool result, and seconds. A measurement, not a test: it exits 0 even
// when a task fails, and says why.
//
// Usage: npm run bench:apps
//   SOVEREIGN_BIN   this browser (default: target/release/sovereign-browser)
//   PEER_DIR        where Playwright MCP is installed (default:
//                   target/bench-peer; installed there with npm when missing)
//   CHROMIUM        the Chromium the peer drives (default: /usr/bin/chromium)
//   BENCH_ONLY      'ours' or 'peer': one browser only
//   BENCH_ROUNDS    rounds, interleaved (default 3): per task, the median
//   BENCH_TRACE     print each call with its result's tokens ('full': and the result)
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { CHROMIUM, PEER_VERSION, startPeer } from './peer.mjs';
import { TEST_NSEC, connectMcp } from '../tests/support/mcp.mjs';
import { parseSnapshot } from '../tests/support/snapshot.mjs';
import {
  APP_PASSWORD, startCms, startDatasette, startLibrary, startTrac,
} from '../tests/support/real_apps.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const RESULTS = fileURLToPath(new URL('./apps-results.json', import.meta.url));
const IMAGE = path.join(REPO_ROOT, 'tests/fixtures/swallow.png');
// How long the agent looks for an element before it gives up, as a model
// would after a few snapshots that do not show it.
const PICK_LIMIT_MS = 10_000;
const CHECK_LIMIT_MS = 5_000;
const tokens = (text) => encode(text).length;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the agent spent: calls, tokens of the arguments it wrote and of the results it read. */
function newTally() {
  return { calls: 0, args: 0, results: 0 };
}

/**
 * A browser's tool calls as the agent makes them: `invoke(name, args)` is the
 * client's call; each result's text is counted in `tally()` (new on `reset()`)
 * and returned, an error result thrown.
 */
function countedCalls(invoke) {
  let tally = newTally();
  const call = async (name, args = {}) => {
    const started = Date.now();
    const result = await invoke(name, args);
    const ms = Date.now() - started;
    const text = resultText(result);
    tally.calls++;
    tally.args += tokens(JSON.stringify({ name, arguments: args }));
    tally.results += tokens(text);
    if (process.env.BENCH_TRACE) console.log(`    ${name} ${JSON.stringify(args).slice(0, 60)} -> ${tokens(text)} tokens, ${ms} ms`);
    if (process.env.BENCH_TRACE === 'full') console.log(text.replace(/^/gm, '      | '));
    if (result.isError) throw new Error(`${name}: ${text.slice(0, 300)}`);
    return text;
  };
  return { call, tally: () => tally, reset: () => { tally = newTally(); } };
}

/** The text of a tool's result, as a model reads it. */
const resultText = (result) => (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// ---------------------------------------------------------------------------------------
// The two browsers, each behind the same small set of moves.

/** This browser: its own tools, its snapshot format. */
async function oursDriver() {
  const browser = await startBrowser({
    bin: BIN,
    baseArgs: ['--headless', '--ephemeral', '--no-panel', '--port', '0', '--log-level', 'warn'],
  });
  const mcp = await connectMcp(browser, { name: 'bench-apps' });
  await mcp.callTool('login', { method: 'local', nsec: TEST_NSEC });
  const folder = JSON.parse(resultText(await mcp.callTool('login_status'))).files_folder;
  let seen = null;
  let picture = null;
  // A control's role is written with a colon when its value follows ("combobox: =").
  const nodesOf = (text) => parseSnapshot(text).nodes.map((n) => ({ ...n, role: n.role.replace(/:$/, '') }));
  const counted = countedCalls((name, args) => mcp.callTool(name, args));
  const call = counted.call;
  return {
    name: 'Sovereign Browser',
    folder,
    reset() { counted.reset(); seen = null; },
    tally: counted.tally,
    seen: () => seen,
    // After its first snapshot the agent asks only for what changed (diff), as a model
    // that knows this browser does, and keeps its own picture of the page up to date;
    // a new document comes whole. (A changed address or title is a diff's line too.)
    async snapshot() {
      if (!picture) {
        picture = nodesOf(await call('snapshot'));
      } else {
        const text = await call('snapshot', { diff: true });
        if (/^a new document/m.test(text)) {
          picture = nodesOf(text);
        } else {
          const lines = text.split('\n').filter((l) => !/^[+-] (url|title): /.test(l));
          const gone = new Set(lines.filter((l) => l.startsWith('- ')).map((l) => l.slice(2).trim()));
          const added = nodesOf(lines.filter((l) => l.startsWith('+ ')).map((l) => l.slice(2)).join('\n'));
          picture = [...picture.filter((n) => !gone.has(n.line.trim())), ...added];
        }
      }
      seen = picture;
      return seen;
    },
    async open(url) { seen = null; await call('open', { url }); },
    async click(node) { seen = null; await call('click', { ref: node.ref }); },
    async fill(node, value) { await call('fill', { ref: node.ref, value }); },
    async select(node, value) { await call('select', { ref: node.ref, value }); },
    async upload(node, file) { seen = null; await call('upload', { ref: node.ref, files: [file] }); },
    /** The site asked for a password: answer it with set_credentials, and open the page again. */
    async httpSignIn(url, user, pass) {
      await call('set_credentials', { user, pass, origin: new URL(url).origin });
      await this.open(url);
    },
    async stop() {
      await mcp.close().catch(() => {});
      await browser.stop();
    },
  };
}

/**
 * Playwright MCP's snapshot (YAML): each node with a ref, its role and name.
 * A node without a name (a button whose label is in an <em>) is read, as a
 * model reads it, by the text of its children.
 */
function parsePeerSnapshot(text) {
  const nodes = [];
  const open = [];
  for (const raw of text.split('\n')) {
    const dash = /^(\s*)- (.*)$/.exec(raw);
    if (!dash) continue;
    const depth = dash[1].length;
    let item = dash[2];
    // YAML quotes an item holding ": " in single quotes, doubling those inside.
    const quoted = /^'(.*)'(:?)$/.exec(item);
    if (quoted) item = quoted[1].replace(/''/g, "'") + quoted[2];
    const m = /^([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(.*)$/.exec(item);
    if (!m) continue;
    while (open.length && open.at(-1).depth >= depth) open.pop();
    const own = /:\s+(.+)$/.exec(m[3].replace(/\[[^\]]*\]/g, ''))?.[1];
    const words = m[1] === 'text' ? item.slice(5).trim() : (m[2] ?? own);
    for (const parent of open) if (words && !parent.node.name) parent.node.content = `${parent.node.content ?? ''} ${words}`.trim();
    const ref = /\[ref=([a-z0-9]+)\]/.exec(m[3])?.[1];
    const node = { role: m[1], name: m[2]?.replace(/\\(.)/g, '$1'), ref };
    nodes.push(node);
    open.push({ depth, node });
  }
  return nodes;
}

/** The snapshot a Playwright MCP answer carries, if any. */
function peerSnapshotIn(text) {
  const at = text.indexOf('```yaml');
  if (at < 0) return null;
  const end = text.indexOf('```', at + 7);
  return parsePeerSnapshot(text.slice(at + 7, end < 0 ? undefined : end));
}

/** Playwright MCP over stdio, with the system Chromium; files it may upload live in its workspace. */
async function peerDriver() {
  const peer = await startPeer('bench-apps');
  const { client, folder } = peer;
  let seen = null;
  const counted = countedCalls((name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
  const call = async (name, args = {}) => {
    const text = await counted.call(name, args);
    // Its answer shows the page as the action left it.
    seen = peerSnapshotIn(text) ?? seen;
    return text;
  };
  const element = (node) => `${node.role} "${node.name ?? ''}"`;
  return {
    name: `Playwright MCP ${PEER_VERSION}`,
    folder,
    reset() { counted.reset(); seen = null; },
    tally: counted.tally,
    seen: () => seen,
    async snapshot() {
      seen = peerSnapshotIn(await call('browser_snapshot')) ?? [];
      return seen;
    },
    async open(url) { seen = null; await call('browser_navigate', { url }); },
    async click(node) { seen = null; await call('browser_click', { element: element(node), target: node.ref }); },
    async fill(node, value) { await call('browser_type', { element: element(node), target: node.ref, text: value }); },
    async select(node, value) {
      await call('browser_select_option', { element: element(node), target: node.ref, values: [value] });
    },
    async upload(node, file) {
      await this.click(node);
      await call('browser_file_upload', { paths: [file] });
    },
    /** No tool answers a site's password prompt: the URL carries the user and password. */
    async httpSignIn(url, user, pass) {
      const withUser = new URL(url);
      withUser.username = user;
      withUser.password = pass;
      await this.open(withUser.href);
    },
    stop: () => peer.close(),
  };
}

// ---------------------------------------------------------------------------------------
// The agent: picks by role and name from what it has seen, as a model does.

function agentOf(driver) {
  // A node is known by its name, or (a nameless button or link in the snapshot) by the
  // text inside it; a text box's content is its value, never its name.
  const called = (n) => n.name || (n.role === 'textbox' ? '' : n.content) || '';
  const matches = (role, name) => (n) => n.role === role && (role === 'heading' || n.ref)
    && (name === null || (name instanceof RegExp ? name.test(called(n)) : called(n) === name));
  const pick = async (role, name = null, { fresh = false } = {}) => {
    const started = Date.now();
    let nodes = fresh ? null : driver.seen();
    for (;;) {
      const found = nodes?.find(matches(role, name));
      if (found) return found;
      if (Date.now() - started > PICK_LIMIT_MS) throw new Error(`no ${role} named ${name} on the page`);
      if (nodes) await sleep(250);
      nodes = await driver.snapshot();
    }
  };
  return {
    driver,
    pick,
    async click(role, name) { await driver.click(await pick(role, name)); },
    async fill(role, name, value) { await driver.fill(await pick(role, name), value); },
    async select(role, name, value) { await driver.select(await pick(role, name), value); },
    async upload(role, name, file) { await driver.upload(await pick(role, name), file); },
    /** The number in a heading of rows ("3 rows where ..."), once one says `what`. */
    async rowsShown(what) {
      const heading = await pick('heading', new RegExp(`^(\\d+) rows? ${what.source}`), { fresh: true });
      return Number(/^(\d+)/.exec(heading.name)[1]);
    },
  };
}

// ---------------------------------------------------------------------------------------
// The tasks, each with the check the application answers.

/** Django's and Wagtail's sign-in form, as `ada`, from the admin's address. */
async function signIn(a, app, button) {
  await a.driver.open(app.url('/admin/'));
  await a.fill('textbox', /^Username/, 'ada');
  await a.fill('textbox', /^Password/, APP_PASSWORD);
  await a.click('button', button);
}

const TASKS = [
  {
    app: 'library',
    name: 'Django admin: sign in',
    run: (a, app) => signIn(a, app, 'Log in'),
    check: async (app) => !!(await app.query("select last_login from auth_user where username = 'ada'"))[0][0],
  },
  {
    app: 'library',
    name: 'Django admin: add a record (text, a choice, a date)',
    async run(a) {
      await a.click('link', 'Books');
      await a.click('link', /^Add book/);
      await a.fill('textbox', /^Title/, 'Leaves of Grass');
      await a.fill('textbox', /^Author/, 'Walt Whitman');
      await a.select('combobox', /^Genre/, 'Poetry');
      await a.fill('textbox', /^Published|^Date/, '1855-07-04');
      await a.click('button', 'Save');
    },
    check: async (app) => JSON.stringify(await app.query(
      "select author, genre, published from books_book where title = 'Leaves of Grass'"))
      === JSON.stringify([['Walt Whitman', 'poetry', '1855-07-04']]),
  },
  {
    app: 'library',
    name: 'Django admin: search, then edit',
    async run(a, app) {
      await a.driver.open(app.url('/admin/books/book/'));
      await a.fill('textbox', /Search/, 'Lovelace');
      await a.click('button', 'Search');
      await a.click('link', 'Notes on the Analytical Engine');
      await a.fill('textbox', /^Notes/, 'The first published program.');
      await a.click('button', 'Save');
    },
    check: async (app) => (await app.query("select notes from books_book where author = 'Ada Lovelace'"))[0]?.[0]
      === 'The first published program.',
  },
  {
    app: 'library',
    name: 'Django admin: delete with an action and its confirmation',
    async run(a, app) {
      await a.driver.open(app.url('/admin/books/book/'));
      await a.click('checkbox', /Frankenstein/);
      await a.select('combobox', /^Action/, 'Delete selected books');
      await a.click('button', 'Go');
      await a.click('button', /^Yes, I.m sure/);
    },
    check: async (app) => (await app.query("select count(*) from books_book where title = 'Frankenstein'"))[0][0] === 0
      && (await app.query('select count(*) from books_book'))[0][0] === 3,
  },
  {
    app: 'datasette',
    name: 'Datasette: filter with the column and operator menus',
    async run(a, app, state) {
      await a.driver.open(app.url('/library/books'));
      await a.select('combobox', null, 'author');
      await a.fill('textbox', null, 'Edgar Allan Poe');
      await a.click('button', 'Apply');
      state.shown = await a.rowsShown(/where author = "Edgar Allan Poe"/);
    },
    check: async (app, state) => state.shown
      === (await app.api('/library/books.json?_shape=array&author=Edgar+Allan+Poe')).length,
  },
  {
    app: 'datasette',
    name: 'Datasette: a suggested facet and one of its values',
    async run(a, app, state) {
      await a.driver.open(app.url('/library/books'));
      await a.click('link', 'genre');
      await a.click('link', /^poetry\b/);
      state.shown = await a.rowsShown(/where genre = "poetry"/);
    },
    check: async (app, state) => state.shown
      === (await app.api('/library/books.json?_shape=array&genre=poetry')).length,
  },
  {
    app: 'cms',
    name: 'Wagtail: sign in, write in the rich-text editor, publish from the menu',
    async run(a, app) {
      await signIn(a, app, 'Sign in');
      await a.click('button', 'Pages');
      await a.click('link', 'Welcome to your new Wagtail site!');
      await a.click('link', 'Add child page');
      await a.fill('textbox', /^Title/, 'Spring migration');
      await a.fill('textbox', 'Summary', 'First sightings');
      // The editor's text box has no name of its own: the unnamed one.
      await a.fill('textbox', /^$/, 'The swallows came back on the tenth.');
      await a.click('button', 'More actions');
      await a.click('button', 'Publish');
    },
    check: async (app) => {
      const [row] = await app.query('select p.live, a.summary, a.body from wagtailcore_page p '
        + "join articles_articlepage a on a.page_ptr_id = p.id where p.title = 'Spring migration'");
      return !!row && row[0] === 1 && row[1] === 'First sightings' && /The swallows came back on the tenth\./.test(row[2]);
    },
  },
  {
    app: 'cms',
    name: 'Wagtail: upload an image with the library\'s button',
    async run(a, app, state, driver) {
      copyFileSync(IMAGE, path.join(driver.folder, 'swallow.png'));
      await a.driver.open(app.url('/admin/images/'));
      await a.click('link', 'Add an image');
      // What the snapshot shows: the page's button, or the file input laid over it.
      await a.upload('button', /^(Or choose from your computer|Choose File)$/, path.join(driver.folder, 'swallow.png'));
    },
    check: async (app) => (await app.query("select count(*) from wagtailimages_image where title = 'swallow'"))[0][0] === 1,
  },
  {
    app: 'trac',
    name: 'Trac: sign in through the password prompt, file a ticket',
    async run(a, app) {
      await a.driver.open(app.url('/'));
      // The site asks for a password: this browser's click says so, the
      // peer's shows the site's refusal; either way the agent answers it.
      await a.click('link', 'Login').catch(() => {});
      await a.driver.httpSignIn(app.url('/login'), 'ada', APP_PASSWORD);
      await a.click('link', 'New Ticket');
      await a.fill('textbox', /^Summary/, 'Swallow nest boxes need new roofs');
      await a.fill('textbox', /^Description/, 'Three of the boxes by the barn leak.');
      await a.select('combobox', /^Type/, 'task');
      await a.select('combobox', /^Priority/, 'minor');
      await a.click('button', 'Create ticket');
    },
    check: async (app) => JSON.stringify(await app.query('select summary, type, priority, reporter from ticket'))
      === JSON.stringify([['Swallow nest boxes need new roofs', 'task', 'minor', 'ada']]),
  },
  {
    app: 'trac',
    name: 'Trac: edit a wiki page',
    async run(a) {
      await a.click('link', 'Wiki');
      await a.click('button', 'Edit this page');
      await a.fill('textbox', /^$/, '= Field station =\nNest box survey: see the tickets.');
      await a.fill('textbox', /^Comment/, 'A start page of our own');
      await a.click('button', 'Submit changes');
    },
    check: async (app) => {
      const [newest] = await app.query("select version, author, comment from wiki where name = 'WikiStart' order by version desc");
      return newest[0] > 1 && newest[1] === 'ada' && newest[2] === 'A start page of our own';
    },
  },
];

const STARTERS = { library: startLibrary, datasette: startDatasette, cms: startCms, trac: startTrac };

/**
 * Whether `check` passes within CHECK_LIMIT_MS, and the moment it was seen
 * passing: the start of the check that passed (a check's own cost, a
 * process reading the database, is the harness's, not the browser's).
 */
async function eventually(check) {
  const started = performance.now();
  for (;;) {
    const at = performance.now();
    if (await check().catch(() => false)) return { ok: true, at };
    if (performance.now() - started > CHECK_LIMIT_MS) return { ok: false, at: performance.now() };
    await sleep(200);
  }
}

/** Every task through one browser, on applications started fresh for it. */
async function runAll(makeDriver) {
  const apps = {};
  for (const [name, start] of Object.entries(STARTERS)) apps[name] = await start();
  const driver = await makeDriver();
  const agent = agentOf(driver);
  const rows = [];
  try {
    for (const task of TASKS) {
      driver.reset();
      const state = {};
      const started = performance.now();
      let why = null;
      try {
        await task.run(agent, apps[task.app], state, driver);
      } catch (error) {
        why = error.message.replace(/\u001b\[\d+m/g, '').replace(/\s+/g, ' ').replace(/### Error /, '').slice(0, 300);
      }
      // The task's time: until the application holds the result (at once, when the
      // agent's last answer came after it), without the checks' own time.
      const { ok, at } = await eventually(() => task.check(apps[task.app], state));
      const seconds = (at - started) / 1000;
      if (!ok && !why) why = 'the application does not hold the result';
      rows.push({ task: task.name, ok, ...driver.tally(), seconds: Number(seconds.toFixed(2)), why: ok ? null : why });
      console.log(`  ${ok ? 'done' : 'FAIL'}  ${task.name}: ${driver.tally().calls} calls, `
        + `${driver.tally().results} tokens, ${seconds.toFixed(1)} s${ok ? '' : ` (${why})`}`);
    }
  } finally {
    await driver.stop();
    for (const app of Object.values(apps)) app.stop();
  }
  return { browser: driver.name, rows };
}

function total(rows) {
  const sum = (key) => rows.reduce((n, r) => n + r[key], 0);
  return {
    done: rows.filter((r) => r.ok).length,
    tasks: rows.length,
    calls: sum('calls'),
    results: sum('results'),
    args: sum('args'),
    seconds: Number(sum('seconds').toFixed(1)),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A task over the rounds: done when done in every one; its spend, the median's. */
function overRounds(rounds) {
  return rounds[0].rows.map((first, i) => {
    const runs = rounds.map((round) => round.rows[i]);
    const of = (key) => median(runs.map((r) => r[key]));
    const failed = runs.find((r) => !r.ok);
    return {
      task: first.task,
      ok: !failed,
      calls: of('calls'),
      args: of('args'),
      results: of('results'),
      seconds: Number(of('seconds').toFixed(2)),
      why: failed ? failed.why : null,
    };
  });
}

const ratio = (o, p) => ({
  tokens: Number((o.results / p.results).toFixed(3)),
  seconds: Number((o.seconds / p.seconds).toFixed(3)),
  calls: Number((o.calls / p.calls).toFixed(3)),
});

async function main() {
  const only = process.env.BENCH_ONLY;
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS) || 3);
  const browsers = [['ours', oursDriver], ['peer', peerDriver]].filter(([key]) => !only || only === key);
  // Rounds interleave the browsers: a slow moment of the machine falls on both.
  const seen = Object.fromEntries(browsers.map(([key]) => [key, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const [key, make] of browsers) {
      console.log(`${key === 'ours' ? 'Sovereign Browser' : `Playwright MCP ${PEER_VERSION} (${CHROMIUM})`}, round ${round} of ${rounds}`);
      seen[key].push(await runAll(make));
    }
  }
  const runs = {};
  for (const [key] of browsers) {
    const rows = overRounds(seen[key]);
    runs[key] = { browser: seen[key][0].browser, rows, total: total(rows) };
  }
  const out = { date: new Date().toISOString(), tokenizer: 'cl100k_base', rounds, runs };
  if (runs.ours && runs.peer) {
    const [o, p] = [runs.ours.total, runs.peer.total];
    out.ratio = ratio(o, p);
    // The goals are read on the tasks both browsers finished.
    const both = runs.ours.rows.map((row, i) => row.ok && runs.peer.rows[i].ok);
    const [ob, pb] = [runs.ours, runs.peer].map((run) => total(run.rows.filter((_, i) => both[i])));
    out.both = { tasks: ob.tasks, ours: ob, peer: pb, ratio: ratio(ob, pb) };
    console.log(`\nin all (medians of ${rounds} rounds): ${o.done}/${o.tasks} vs ${p.done}/${p.tasks} done; `
      + `tokens ${o.results} vs ${p.results} (${out.ratio.tokens}x); seconds ${o.seconds} vs ${p.seconds} `
      + `(${out.ratio.seconds}x); calls ${o.calls} vs ${p.calls}`);
    console.log(`on the ${ob.tasks} tasks both finished: tokens ${ob.results} vs ${pb.results} (${out.both.ratio.tokens}x); `
      + `seconds ${ob.seconds} vs ${pb.seconds} (${out.both.ratio.seconds}x)`);
  }
  writeFileSync(RESULTS, JSON.stringify(out, null, 2) + '\n');
  console.log(`results: ${path.relative(REPO_ROOT, RESULTS)}`);
}

await main();
