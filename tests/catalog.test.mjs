// The whole catalogue: tools/list has exactly the plan's 100 tools and those
// added since, each is documented (description, the table in docs/tools.md), each does
// what its description says when called as a user would (or answers its
// documented error), only the identity tools and batch answer before login,
// and --tools offers a subset.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, startBrowser, withBrowserLog } from './support/browser.mjs';
import { CATALOGUE_SIZE, LISTED_SIZE, TEST_NPUB, TEST_NSEC, callError, callJson, callText, connectMcp, errorResult } from './support/mcp.mjs';
import { TRANSPORTS, connectDriver } from './support/driver.mjs';
import { allowRoutesInPersonsWindow, startLoggedIn } from './support/session.mjs';
import { assertPngBase64 } from './support/png.mjs';
import { waitFor } from './support/wait.mjs';

// The plan's tool names (the contract), by family.
const PLAN = [
  'login_status', 'login', 'logout', 'switch_identity',
  'open', 'back', 'forward', 'reload', 'get_url', 'get_title',
  'snapshot', 'get_text', 'get_html', 'get_attr', 'eval', 'screenshot',
  'click', 'fill', 'type', 'press', 'scroll', 'hover', 'focus',
  'close', 'tab_list', 'tab_new', 'tab_switch', 'tab_close', 'wait', 'wait_for',
  'dblclick', 'select', 'check', 'uncheck', 'scroll_into_view', 'keyboard_type', 'insert_text',
  'keydown', 'keyup', 'drag', 'close_all',
  'get_value', 'get_count', 'get_box', 'get_styles', 'is_visible', 'is_enabled', 'is_checked',
  'find_role', 'find_text', 'find_label', 'find_placeholder', 'find_alt', 'find_title', 'find_testid',
  'find_first', 'find_last', 'find_nth',
  'wait_for_text', 'wait_for_url', 'wait_for_load', 'wait_for_fn', 'batch',
  'cookies_get', 'cookies_set', 'cookies_clear',
  'storage_local_get', 'storage_local_get_key', 'storage_local_set', 'storage_local_clear',
  'storage_session_get', 'storage_session_get_key', 'storage_session_set', 'storage_session_clear',
  'mouse_move', 'mouse_down', 'mouse_up', 'mouse_wheel',
  'clipboard_read', 'clipboard_write', 'clipboard_copy', 'clipboard_paste',
  'set_viewport', 'set_offline', 'set_headers', 'set_credentials', 'set_media',
  'frame_switch', 'frame_main', 'dialog_accept', 'dialog_dismiss', 'dialog_status',
  'console', 'errors', 'highlight', 'state_save', 'state_load',
  'upload', 'pdf', 'screenshot_annotated',
];
// Tools added to the plan since: the network and its routes, handing over to the person, contexts, emulation.
const ADDED = ['network_requests', 'network_request', 'network_route', 'network_route_har', 'network_unroute', 'network_routes', 'set_user_agent', 'set_locale', 'set_geolocation', 'set_timezone', 'set_device', 'audit_accessibility', 'downloads', 'wait_for_download', 'download_cancel', 'ask_person', 'context_new', 'context_list', 'context_close', 'fill_form', 'tools_enable', 'secrets_list'];
// Called last: they end every tab, then the login.
const LAST = ['close_all', 'logout'];

// What tools/list may cost a model, in cl100k tokens.
const CATALOGUE_TOKEN_BUDGET = 6000;

// The tools that answer before login: declared .ungated() in src-rust/tools/
// (the identity tools, and batch, whose commands each pass the gate
// themselves). A new ungated tool must be added here.
const UNGATED = ['batch', 'login', 'login_status', 'logout', 'switch_identity', 'tools_enable'];
const NOT_LOGGED_IN_MESSAGE =
  'no identity is logged in; call login first (method local with an nsec, or readonly with an npub)';

const show = (v) => {
  const s = JSON.stringify(v);
  return s.length > 600 ? s.slice(0, 600) + '…' : s;
};

describe('the tool catalogue', { timeout: 240_000 }, () => {
  // The files folder that upload and pdf are confined to.
  const files = mkdtempSync(path.join(os.tmpdir(), 'sovereign-catalogue-'));
  const note = path.join(files, 'note.txt');
  let session;
  let mcp;
  before(async () => {
    writeFileSync(note, 'hello file');
    session = await startLoggedIn({ args: ['--files-dir', files] });
    ({ mcp } = session);
    await allowRoutesInPersonsWindow(session.browser);
  }, { timeout: 90_000 });
  after(async () => {
    await session?.stop();
    rmSync(files, { recursive: true, force: true });
  });

  // Families of tools beyond everyday browsing, listed on request (tools_enable).
  const FAMILIES = ['find', 'inspect', 'storage', 'mouse', 'clipboard', 'network', 'emulation', 'contexts'];
  // switch_identity takes login's parameters, and says so instead of repeating them.
  const SAME_AS_LOGIN = 'switch_identity';

  it(`tools/list shows the everyday tools within ${CATALOGUE_TOKEN_BUDGET} tokens, every family as a word of tools_enable, every parameter described`, async () => {
    const tools = await mcp.listTools();
    const tokens = encode(JSON.stringify(tools)).length;
    assert.ok(tokens <= CATALOGUE_TOKEN_BUDGET, `tools/list costs ${tokens} tokens, over ${CATALOGUE_TOKEN_BUDGET}`);
    assert.equal(tools.length, LISTED_SIZE);
    for (const hidden of ['cookies_get', 'find_role', 'mouse_move', 'set_viewport', 'context_new', 'network_requests']) {
      assert.ok(!tools.some((t) => t.name === hidden), `${hidden} waits for its family`);
    }
    const enable = tools.find((t) => t.name === 'tools_enable');
    for (const family of FAMILIES) assert.match(enable.description, new RegExp(`\\b${family}\\b`), family);
    assertDescribed(tools);
  });

  it('tools_enable lists a family, tells clients the list changed, and the whole catalogue is the plan\'s 100 and those added since, each in docs/tools.md', async () => {
    let changed = 0;
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed += 1; });
    const storage = await callJson(mcp, 'tools_enable', { family: 'storage' });
    assert.deepEqual(storage.enabled, ['storage']);
    assert.ok(storage.tools.some((t) => t.name === 'cookies_get' && t.inputSchema.type === 'object'), 'the declarations come with it');
    await waitFor(() => changed > 0, 'notifications/tools/list_changed');
    assert.ok((await mcp.listTools()).some((t) => t.name === 'cookies_get'));
    assert.match(await callError(mcp, 'tools_enable', { family: 'everything' }, 'INVALID_PARAMS'), /families: find, inspect/);
    await callJson(mcp, 'tools_enable', { family: 'all' });
    const tools = await mcp.listTools();
    assert.equal(PLAN.length, 100);
    assert.equal(PLAN.length + ADDED.length, CATALOGUE_SIZE);
    assert.deepEqual(tools.map((t) => t.name).sort(), [...PLAN, ...ADDED].sort());
    const reference = readFileSync(`${REPO_ROOT}/docs/tools.md`, 'utf8');
    for (const tool of tools) {
      assert.ok(tool.description.length >= 12 && tool.description.endsWith('.'), `${tool.name} has a real description, a sentence`);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(reference.includes(`| \`${tool.name}\` |`), `${tool.name} is in the tool table of docs/tools.md`);
    }
    assertDescribed(tools);
  });

  /** Every parameter has a description; a tool with one that changes state (clear, mark) is not read-only. */
  function assertDescribed(tools) {
    for (const tool of tools.filter((t) => t.name !== SAME_AS_LOGIN)) {
      const properties = tool.inputSchema.properties ?? {};
      for (const [name, schema] of Object.entries(properties)) {
        assert.ok(schema.description, `${tool.name}.${name} has no description`);
      }
      if (['clear', 'mark'].some((name) => name in properties)) {
        assert.notEqual(tool.annotations?.readOnlyHint, true, `${tool.name} changes state, yet is marked read-only`);
      }
    }
  }

  // ---- The table: one real call per tool, and what a user would check.
  //
  // Each row: the tool, its arguments (or a function giving them), an
  // optional setup, and either the check of its result or the documented
  // error code it must answer. Rows run in order on one tab; `extra` rows
  // (a tool's documented refusal) come after that tool's main row.
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const text = async (selector) => (await callText(mcp, 'get_text', { selector })).trim();
  const page = async (script) => (await call('eval', { script })).value;
  const url = (p) => session.fixtures.url(p);
  const CATALOGUE = () => url('/catalog.html');
  const openCatalogue = () => call('open', { url: CATALOGUE() });
  const later = (js) => page(`setTimeout(() => { ${js} }, 50); true`);
  const dialogOpen = (type) => waitFor(async () => (await call('dialog_status')).type === type, `a ${type} dialog`);

  /** A JSON tool whose result `check` looks at. */
  const ok = (tool, args, check, opts = {}) => ({ tool, args, kind: 'json', check, ...opts });
  /** A text tool (snapshot, get_text, get_html). */
  const txt = (tool, args, check, opts = {}) => ({ tool, args, kind: 'text', check, ...opts });
  /** A tool whose result has an image block: `check` gets the whole MCP result. */
  const img = (tool, args, check, opts = {}) => ({ tool, args, kind: 'image', check, ...opts });
  /** A tool that must answer its documented error `code` (message matching `message`). */
  const fails = (tool, args, code, message, opts = {}) => ({ tool, args, kind: 'error', code, message, ...opts });
  /** A documented refusal, after the tool's main row. */
  const extra = (row) => ({ ...row, extra: true });

  let fetched; // the id network_requests gave the catalogue page's fetch
  const TABLE = [
    // Identity (the session starts logged in with the test nsec).
    ok('login_status', {}, (r) => {
      assert.equal(r.logged_in, true);
      assert.equal(r.method, 'local');
      assert.equal(r.npub, TEST_NPUB);
      assert.equal(r.files_folder, realpathSync(files), 'where upload, pdf and state files live');
    }),
    ok('login', { method: 'local', nsec: TEST_NSEC }, (r) => {
      assert.equal(r.logged_in, true);
      assert.equal(r.npub, TEST_NPUB);
      assert.ok(!JSON.stringify(r).includes(TEST_NSEC), 'the result never holds the secret');
    }),
    extra(fails('login', {}, 'INVALID_PARAMS')),
    ok('switch_identity', { method: 'readonly', npub: TEST_NPUB }, async (r) => {
      assert.equal(r.method, 'readonly');
      assert.equal((await call('login_status')).method, 'readonly');
      assert.equal((await call('switch_identity', { method: 'local', nsec: TEST_NSEC })).method, 'local');
    }),

    // Navigation.
    ok('open', () => ({ url: CATALOGUE() }), (r) => {
      assert.equal(r.url, CATALOGUE());
      assert.equal(r.title, 'Catalogue');
    }),
    extra(fails('open', {}, 'INVALID_PARAMS')),
    ok('get_url', {}, (r) => assert.equal(r.url, CATALOGUE())),
    ok('get_title', {}, (r) => assert.equal(r.title, 'Catalogue')),
    ok('back', {}, (r) => {
      assert.equal(r.url, CATALOGUE());
      assert.equal(r.title, 'Catalogue');
    }, { setup: async () => assert.equal((await call('click', { selector: '#next' })).title, 'Links') }),
    ok('forward', {}, (r) => {
      assert.equal(r.url, url('/links.html'));
      assert.equal(r.title, 'Links');
    }),
    ok('reload', {}, async (r) => {
      assert.equal(r.url, CATALOGUE());
      assert.equal(await text('#out'), 'ready', 'the reloaded page starts afresh');
    }, { setup: async () => { await openCatalogue(); await page("out('changed'); 1"); } }),

    // Reading the page.
    txt('snapshot', {}, (snap) => {
      assert.match(snap, /^title: Catalogue$/m);
      assert.match(snap, /^e\d+ button "Go"$/m);
      assert.match(snap, /^e\d+ textbox "Name": Ada$/m);
      assert.match(snap, /^e\d+ checkbox "News" \[checked\]$/m);
    }),
    txt('get_text', { selector: '#styled' }, (t) => assert.equal(t.trim(), 'Styled bold text')),
    txt('get_html', { selector: '#styled' }, (t) => assert.equal(t.trim(), 'Styled <b>bold</b> text')),
    ok('get_attr', { selector: '#next', attr: 'href' }, (r) => assert.equal(r.value, '/links.html')),
    extra(ok('get_attr', { selector: '#next', attr: 'data-none' }, (r) => assert.equal(r.value, null))),
    ok('eval', { script: "document.querySelectorAll('li.item').length * 2" }, (r) => assert.equal(r.value, 6)),
    extra(fails('eval', { script: "throw new Error('from the script')" }, 'JS_ERROR', /from the script/)),
    img('screenshot', {}, async (r) => {
      const image = r.content.find((c) => c.type === 'image');
      assert.equal(image.mimeType, 'image/png');
      const { width, height } = assertPngBase64(image.data, 'screenshot');
      assert.deepEqual([width, height], await page('[innerWidth, innerHeight]'), 'the visible part of the page');
    }),

    // Acting on it.
    ok('click', { selector: '#go' }, async (r) => {
      assert.equal(r.clicked, true);
      assert.equal(r.navigated, false);
      assert.equal(await text('#out'), 'clicked true', 'the page saw a trusted click');
    }),
    extra(fails('click', {}, 'INVALID_PARAMS')),
    extra(fails('click', { selector: '#off', timeout: 0 }, 'NOT_INTERACTABLE')),
    extra(fails('click', { selector: '#nowhere' }, 'ELEMENT_NOT_FOUND')),
    ok('fill', { selector: '#name', value: 'Grace' }, async (r) => {
      assert.equal(r.value, 'Grace');
      assert.equal(await page("document.getElementById('name').value"), 'Grace');
    }),
    ok('fill_form', { fields: [{ selector: '#name', value: 'Ada' }, { selector: '#name', value: 'Grace' }] }, async (r) => {
      assert.deepEqual(r.fields.map((f) => f.value), ['Ada', 'Grace']);
      assert.equal(await page("document.getElementById('name').value"), 'Grace');
    }),
    extra(fails('fill_form', { fields: [{ selector: '#missing', value: 'x' }] }, 'ELEMENT_NOT_FOUND', /^field 0 \(#missing\)/)),
    ok('type', { selector: '#name', value: ' Hopper' }, async (r) => {
      assert.equal(r.value, 'Grace Hopper');
      assert.equal(await page("document.getElementById('name').value"), 'Grace Hopper');
    }),
    ok('press', { key: 'Backspace' }, async (r) => {
      assert.equal(r.key, 'Backspace');
      assert.equal(r.navigated, false);
      assert.equal(await page("document.getElementById('name').value"), 'Grace Hoppe', 'the focused field lost a letter');
    }),
    ok('scroll', { direction: 'down', amount: 200 }, async (r) => {
      assert.equal(r.scrollY, 200);
      assert.equal(await page('scrollY'), 200);
    }),
    ok('hover', { selector: '#hover-me' }, async (r) => {
      assert.equal(r.hovered, true);
      assert.equal(await text('#out'), 'hovered true');
    }),
    ok('focus', { selector: '#keys' }, async (r) => {
      assert.equal(r.focused, true);
      assert.equal(await page('document.activeElement.id'), 'keys');
    }),

    // Tabs.
    ok('tab_list', {}, (r) => {
      assert.equal(r.tabs.length, 1);
      assert.equal(r.tabs[0].url, CATALOGUE());
      assert.equal(r.tabs[0].current, true);
    }),
    ok('tab_new', () => ({ url: url('/links.html') }), async (r) => {
      assert.deepEqual([r.index, r.title], [1, 'Links']);
      const { tabs } = await call('tab_list');
      assert.deepEqual(tabs.map((t) => [t.title, t.current]), [['Catalogue', false], ['Links', true]]);
    }),
    ok('tab_switch', { index: 0 }, async (r) => {
      assert.equal(r.url, CATALOGUE());
      assert.equal((await call('get_title')).title, 'Catalogue', 'tools act on the chosen tab');
    }),
    extra(fails('tab_switch', { index: 7 }, 'INVALID_PARAMS')),
    ok('tab_close', { index: 1 }, async (r) => {
      assert.deepEqual([r.closed, r.tabs], [1, 1]);
      assert.deepEqual((await call('tab_list')).tabs.map((t) => t.title), ['Catalogue']);
    }),
    ok('close', {}, async (r) => {
      assert.deepEqual([r.closed, r.tabs], [1, 1]);
      assert.equal((await call('get_url')).url, CATALOGUE(), 'the next call acts on the tab left');
    }, { setup: async () => assert.equal((await call('tab_new', {})).index, 1) }),

    // Contexts.
    ok('context_new', { name: 'catalogue' }, async (r) => {
      assert.deepEqual([r.context, r.ephemeral, r.logged_in], ['catalogue', true, false]);
      await callError(mcp, 'get_url', {}, 'NOT_LOGGED_IN');
      await call('login', { method: 'local', nsec: TEST_NSEC });
      assert.equal((await call('get_url')).url, 'about:blank', 'the session works in its blank tab');
      assert.equal((await call('tab_list')).context, 'catalogue');
    }),
    extra(fails('context_new', { name: 'Not A Name' }, 'INVALID_PARAMS')),
    ok('context_list', {}, (r) => {
      assert.deepEqual(r.contexts.map((c) => [c.context, c.current]), [['default', false], ['catalogue', true]]);
    }),
    ok('context_close', { context: 'catalogue' }, async (r) => {
      assert.deepEqual([r.closed, r.tabs], ['catalogue', 1]);
      assert.equal((await call('get_url')).url, CATALOGUE(), 'back in the default context');
    }),
    extra(fails('context_close', { context: 'default' }, 'NOT_ALLOWED')),

    // Waiting.
    ok('wait', { ms: 20 }, (r) => assert.ok(r.waited_ms >= 20, show(r))),
    ok('wait_for', { selector: '#late' }, async (r) => {
      assert.equal(r.found, true);
      assert.equal((await callText(mcp, 'get_text', { ref: r.ref })).trim(), 'Late', 'its ref is the new element');
    }, { setup: () => later("const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Late'; document.body.prepend(p);") }),
    ok('wait_for_text', { text: 'arrived later' }, async (r) => {
      assert.equal(r.found, true);
      assert.equal(await text('#out'), 'arrived later');
    }, { setup: () => later("out('arrived later')") }),
    extra(fails('wait_for_text', { text: 'never shown', timeout: 200 }, 'TIMEOUT')),
    ok('wait_for_url', { url_pattern: '**/links.html' }, (r) => assert.equal(r.url, url('/links.html')),
      { setup: () => later("location.href = '/links.html'") }),
    ok('wait_for_load', { state: 'load' }, async (r) => {
      assert.equal(r.state, 'load');
      assert.equal(r.url, url('/links.html'));
      assert.equal(await page('document.readyState'), 'complete');
    }),
    ok('wait_for_fn', { script: 'window.answer' }, (r) => assert.equal(r.value, 42),
      { setup: async () => { await openCatalogue(); await later('window.answer = 42;'); } }),
    ok('batch', { commands: [{ tool: 'get_title' }, { tool: 'get_count', params: { selector: 'li.item' } }, { tool: 'nope' }, { tool: 'get_url' }] }, (r) => {
      assert.deepEqual([r.ok, r.run, r.failed, r.skipped], [false, 3, 1, 1]);
      assert.equal(r.results[0].result.title, 'Catalogue');
      assert.equal(r.results[1].result.count, 3);
      assert.equal(r.results[2].error.code, 'UNKNOWN_TOOL');
    }),
    extra(fails('batch', {}, 'INVALID_PARAMS')),
    ok('tools_enable', { family: 'mouse' }, (r) => {
      assert.deepEqual(r.enabled, ['mouse']);
      assert.deepEqual(r.tools.map((t) => t.name), ['mouse_move', 'mouse_down', 'mouse_up', 'mouse_wheel']);
    }),
    extra(fails('tools_enable', { family: 'nothing' }, 'INVALID_PARAMS', /families:/)),
    // Nobody made a vault in this run: the agent is told to ask the person.
    ok('secrets_list', {}, (r) => {
      assert.deepEqual([r.open, r.entries], [false, []]);
      assert.match(r.note, /ask the person/);
    }),

    // Forms and mouse gestures.
    ok('dblclick', { selector: '#dbl' }, async (r) => {
      assert.equal(r.double_clicked, true);
      assert.equal(await text('#out'), 'double-clicked true');
    }),
    ok('select', { selector: '#colour', value: 'Green' }, async (r) => {
      assert.deepEqual([r.value, r.text], ['green', 'Green']);
      assert.equal(await text('#out'), 'colour green', 'the page heard the change');
    }),
    extra(fails('select', { selector: '#colour', value: 'Mauve' }, 'ELEMENT_NOT_FOUND')),
    ok('check', { selector: '#agree' }, async (r) => {
      assert.deepEqual([r.checked, r.changed], [true, true]);
      assert.equal(await text('#out'), 'agree true');
    }),
    ok('uncheck', { selector: '#news' }, async (r) => {
      assert.deepEqual([r.checked, r.changed], [false, true]);
      assert.equal(await text('#out'), 'news false');
    }),
    ok('scroll_into_view', { selector: '#far' }, async (r) => {
      assert.equal(r.in_viewport, true);
      assert.ok(await page('scrollY') > 1000, 'the page scrolled down to it');
    }),
    ok('keyboard_type', { value: 'hi' }, async (r) => {
      assert.deepEqual([r.focused, r.value], ['input#keys', 'hi']);
      assert.deepEqual(await page("window.keys.filter((k) => k.startsWith('down:'))"), ['down:h:true', 'down:i:true']);
    }, { setup: () => call('focus', { selector: '#keys' }) }),
    ok('insert_text', { value: '!' }, async (r) => {
      assert.equal(r.value, 'hi!');
      assert.equal(await page("document.getElementById('keys').value"), 'hi!');
    }),
    ok('keydown', { key: 'Shift' }, async (r) => {
      assert.deepEqual(r.held, ['Shift']);
      assert.equal(await page('window.keys.at(-1)'), 'down:Shift:true');
    }),
    extra(fails('keydown', { key: 'NoSuchKey' }, 'INVALID_PARAMS')),
    ok('keyup', { key: 'Shift' }, async (r) => {
      assert.deepEqual(r.held, []);
      assert.equal(await page('window.keys.at(-1)'), 'up:Shift:true');
    }),
    ok('drag', { src_selector: '#item', tgt_selector: '#zone' }, async (r) => {
      assert.equal(r.dragged, true);
      assert.equal(await text('#out'), 'dropped item true');
    }),
    extra(fails('drag', { src_selector: '#item' }, 'INVALID_PARAMS')),

    // Inspecting elements.
    ok('get_value', { selector: '#colour' }, (r) => assert.deepEqual([r.value, r.text], ['green', 'Green'])),
    ok('get_count', { selector: 'li.item' }, (r) => assert.equal(r.count, 3)),
    extra(fails('get_count', {}, 'INVALID_PARAMS')),
    ok('get_box', { selector: '#go' }, async (r) => {
      const rect = await page("(({ x, y, width, height }) => ({ x, y, width, height }))(document.getElementById('go').getBoundingClientRect())");
      for (const k of ['x', 'y', 'width', 'height']) assert.ok(Math.abs(r[k] - rect[k]) < 1, `${k}: ${r[k]} vs ${rect[k]}`);
      assert.ok(r.width > 0 && r.height > 0);
    }),
    ok('get_styles', { selector: '#styled', properties: ['color', 'display'] },
      (r) => assert.deepEqual(r.styles, { color: 'rgb(0, 128, 0)', display: 'block' })),
    ok('is_visible', { selector: '#hidden' }, async (r) => {
      assert.equal(r.visible, false);
      assert.match(r.reason, /display/);
      assert.equal((await call('is_visible', { selector: '#go' })).visible, true);
    }),
    ok('is_enabled', { selector: '#off' }, async (r) => {
      assert.equal(r.enabled, false);
      assert.match(r.reason, /disabled/);
      assert.equal((await call('is_enabled', { selector: '#go' })).enabled, true);
    }),
    ok('is_checked', { selector: '#agree' }, async (r) => {
      assert.equal(r.checked, true);
      assert.equal((await call('is_checked', { selector: '#news' })).checked, false);
    }),

    // Finding elements: each gives a ref that reads the element meant.
    ...[
      ['find_role', { role: 'button', name: 'Go' }, 'button', '#go'],
      ['find_text', { text: 'Second item' }, 'listitem', null, 'Second item'],
      ['find_label', { label: 'Name' }, 'textbox', '#name'],
      ['find_placeholder', { placeholder: 'Your name' }, 'textbox', '#name'],
      ['find_alt', { alt: 'logo' }, 'img', '#logo'],
      ['find_title', { title: 'tooltip' }, null, '#tip', 'tip'],
      ['find_testid', { testid: 'panel' }, 'region', '#panel', 'Panel content'],
      ['find_first', { selector: 'li.item' }, 'listitem', null, 'First item'],
      ['find_last', { selector: 'li.item' }, 'listitem', null, 'Third item'],
      ['find_nth', { selector: 'li.item', n: 1 }, 'listitem', null, 'Second item'],
    ].map(([tool, args, role, selector, shown]) => ok(tool, args, async (r) => {
      assert.match(r.ref, /^e\d+$/);
      if (role) assert.equal(r.role, role);
      if (selector) assert.equal(r.selector, selector);
      assert.equal(await page(`document.querySelectorAll(${JSON.stringify(r.selector)}).length`), 1, 'a unique selector');
      if (shown) assert.equal((await callText(mcp, 'get_text', { ref: r.ref })).trim(), shown);
    })),
    extra(fails('find_role', { role: 'button', name: 'No such button' }, 'ELEMENT_NOT_FOUND')),

    // Cookies and storage, checked from the page's side.
    ok('cookies_set', { name: 'flavour', value: 'oat' }, async (r) => {
      assert.deepEqual([r.set.name, r.set.value, r.set.domain], ['flavour', 'oat', '127.0.0.1']);
      assert.equal(await page('document.cookie'), 'flavour=oat');
    }),
    ok('cookies_get', {}, (r) => {
      const cookie = r.cookies.find((c) => c.name === 'flavour');
      assert.ok(cookie, show(r));
      assert.deepEqual([cookie.value, cookie.path, cookie.httpOnly], ['oat', '/', false]);
    }),
    ok('cookies_clear', {}, async () => {
      assert.equal((await call('cookies_get')).cookies.length, 0);
      assert.equal(await page('document.cookie'), '');
    }),
    ok('storage_local_set', { key: 'colour', value: 'teal' }, async (r) => {
      assert.equal(r.value, 'teal');
      assert.equal(await page("localStorage.getItem('colour')"), 'teal');
    }),
    ok('storage_local_get', {}, (r) => assert.deepEqual(r.items, { colour: 'teal' })),
    ok('storage_local_get_key', { key: 'colour' }, async (r) => {
      assert.equal(r.value, 'teal');
      assert.equal((await call('storage_local_get_key', { key: 'absent' })).value, null);
    }),
    ok('storage_local_clear', {}, async (r) => {
      assert.equal(r.cleared, 1);
      assert.equal(await page('localStorage.length'), 0);
    }),
    ok('storage_session_set', { key: 'step', value: '2' }, async (r) => {
      assert.equal(r.value, '2');
      assert.equal(await page("sessionStorage.getItem('step')"), '2');
    }),
    ok('storage_session_get', {}, (r) => assert.deepEqual(r.items, { step: '2' })),
    ok('storage_session_get_key', { key: 'step' }, (r) => assert.equal(r.value, '2')),
    ok('storage_session_clear', {}, async (r) => {
      assert.equal(r.cleared, 1);
      assert.equal(await page('sessionStorage.length'), 0);
    }),

    // The mouse, where it is: on the Go button.
    ok('mouse_move', async () => {
      await page("scrollTo(0, 0); out(''); window.mouse = []; true");
      const box = await call('get_box', { selector: '#go' });
      return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    }, async (r) => assert.equal(await page('window.lastMove'), `${r.x},${r.y}:true`)),
    extra(fails('mouse_move', { x: -5, y: 10 }, 'INVALID_PARAMS')),
    ok('mouse_down', {}, async () => assert.deepEqual(await page('window.mouse'), ['mousedown:0:true'])),
    ok('mouse_up', {}, async () => {
      assert.deepEqual(await page('window.mouse'), ['mousedown:0:true', 'mouseup:0:true']);
      assert.equal(await text('#out'), 'clicked true', 'down and up on the button made a click');
    }),
    ok('mouse_wheel', { dy: 300 }, async (r) => {
      assert.equal(r.scrollY, 300);
      assert.deepEqual(await page('window.wheels'), ['300:true']);
    }),

    // The clipboard (the browser's own display's).
    ok('clipboard_write', { text: 'from the agent' }, async () => {
      assert.equal((await call('clipboard_read')).text, 'from the agent');
    }),
    ok('clipboard_read', {}, (r) => assert.deepEqual(r, { text: 'from the agent' })),
    ok('clipboard_paste', {}, async () => {
      assert.equal(await text('#out'), 'paste from the agent', 'the page saw the paste');
      assert.equal(await page("document.getElementById('keys').value"), 'from the agent');
    }, { setup: async () => { await page("document.getElementById('keys').value = ''; 1"); await call('click', { selector: '#keys' }); } }),
    ok('clipboard_copy', {}, async () => {
      assert.equal((await call('clipboard_read')).text, 'Copy this sentence');
    }, { setup: () => page("getSelection().selectAllChildren(document.getElementById('copy-source')); 1") }),

    // Settings, checked by what the page or the fixture server saw.
    ok('set_viewport', { width: 800, height: 600 }, async (r) => {
      assert.deepEqual([r.width, r.height], [800, 600]);
      assert.deepEqual(await page('[innerWidth, innerHeight]'), [800, 600]);
    }),
    extra(fails('set_viewport', { width: 50, height: 600 }, 'INVALID_PARAMS')),
    ok('set_offline', { offline: true }, async (r) => {
      assert.equal(r.offline, true);
      errorResult(await mcp.callTool('open', { url: CATALOGUE() }), 'NAVIGATION_FAILED', 'open while offline');
      assert.equal((await call('set_offline', { offline: false })).offline, false);
      assert.equal((await openCatalogue()).title, 'Catalogue', 'back online');
    }),
    ok('set_user_agent', { user_agent: 'CatalogueAgent/1.0' }, async (r) => {
      assert.equal(r.user_agent, 'CatalogueAgent/1.0');
      assert.equal((await call('eval', { script: 'navigator.userAgent' })).value, 'CatalogueAgent/1.0');
      assert.match((await call('set_user_agent', {})).user_agent, /AppleWebKit/);
    }),
    ok('set_locale', { locale: 'fr-FR' }, async (r) => {
      assert.deepEqual(r, { locale: 'fr-FR', shared: true });
      assert.deepEqual(await call('set_locale', {}), { locale: null, shared: true });
    }),
    ok('set_geolocation', { latitude: 48.85, longitude: 2.35 }, async (r) => {
      assert.deepEqual(r, { geolocation: { latitude: 48.85, longitude: 2.35, accuracy: 10 }, permission: 'granted' });
      assert.equal((await call('set_geolocation', {})).permission, 'denied');
    }),
    extra(fails('set_geolocation', { longitude: 2 }, 'INVALID_PARAMS', /latitude and longitude/)),
    ok('set_timezone', { timezone: 'Asia/Tokyo' }, async (r) => {
      assert.equal(r.utc_offset, '+09:00');
      await call('reload');
      assert.equal((await call('eval', { script: 'Intl.DateTimeFormat().resolvedOptions().timeZone' })).value, 'Asia/Tokyo');
      assert.deepEqual(await call('set_timezone', {}), { timezone: null });
      await call('reload');
    }),
    extra(fails('set_timezone', { timezone: 'Nowhere/Atall' }, 'INVALID_PARAMS', /IANA name/)),
    ok('set_device', { name: 'iPhone SE' }, async (r) => {
      assert.deepEqual(r.viewport, { width: 375, height: 667 });
      assert.equal((await call('eval', { script: 'innerWidth' })).value, 375);
      assert.equal((await call('set_device', { name: 'Desktop' })).viewport.width, 1280);
      await call('set_viewport', { width: 800, height: 600 });
    }),
    extra(fails('set_device', { name: 'Nokia 3310' }, 'INVALID_PARAMS', /iPhone 15/)),
    ok('downloads', {}, (r) => assert.ok(Array.isArray(r.downloads))),
    fails('wait_for_download', { timeout: 200 }, 'TIMEOUT', /no download ended within 200 ms/),
    fails('download_cancel', { id: 424242 }, 'INVALID_PARAMS', /no download 424242/),
    ok('audit_accessibility', { selector: 'h1' }, (r) => {
      assert.equal(r.count, r.violations.length);
      assert.match(r.engine, /^axe-core /);
    }),
    ok('set_headers', { headers: { 'X-Catalogue': 'yes' } }, async (r) => {
      assert.deepEqual(r.headers, ['X-Catalogue']);
      await call('open', { url: url('/echo') });
      assert.equal(JSON.parse(await text('#echo')).headers['x-catalogue'], 'yes');
      await call('reload');
      assert.equal(JSON.parse(await text('#echo')).headers['x-catalogue'], 'yes', 'a reload carries them too');
      await call('set_headers', { headers: {} });
      await call('open', { url: url('/echo') });
      assert.equal(JSON.parse(await text('#echo')).headers['x-catalogue'], undefined, '{} removed them');
    }),
    ok('set_credentials', () => ({ user: 'agent', pass: 's3cret', origin: session.fixtures.origin }), async (r) => {
      assert.deepEqual([r.credentials, r.origin], [true, session.fixtures.origin]);
      assert.equal((await call('open', { url: url('/auth') })).title, 'Welcome');
      assert.equal(await text('#auth'), 'welcome agent');
    }),
    ok('set_media', { color_scheme: 'dark' }, async (r) => {
      assert.equal(r.color_scheme, 'dark');
      assert.equal(await page("matchMedia('(prefers-color-scheme: dark)').matches"), true);
      await call('set_media', { color_scheme: 'light' });
      assert.equal(await page("matchMedia('(prefers-color-scheme: dark)').matches"), false);
    }),
    extra(fails('set_media', { color_scheme: 'sepia' }, 'INVALID_PARAMS')),

    // Frames and dialogs.
    ok('frame_switch', { selector: 'iframe' }, async (r) => {
      assert.equal(r.url, url('/frame-inner.html'));
      assert.equal(r.same_origin, true);
      await call('click', { selector: 'button' });
      assert.equal(await text('#out'), 'inner clicked true', 'the click landed inside the frame');
    }, { setup: async () => {
      await openCatalogue();
      // The frame's document loads on its own after the page's load.
      await call('wait_for_fn', { script: "document.querySelector('iframe').contentDocument?.readyState === 'complete'" });
    } }),
    ok('frame_main', {}, async (r) => {
      assert.equal(r.frame, 'main');
      assert.equal(await text('#out'), 'ready', 'selectors reach the page again');
    }),
    extra(fails('frame_switch', { selector: 'h1' }, 'INVALID_PARAMS', /not an iframe or frame/)),
    ok('dialog_status', {}, (r) => assert.equal(r.open, false)),
    ok('dialog_accept', {}, async (r) => {
      assert.deepEqual([r.answered, r.accepted], ['confirm', true]);
      assert.equal(await text('#out'), 'confirm true');
    }, { setup: async () => {
      await call('click', { selector: '#confirm' });
      await dialogOpen('confirm');
      assert.equal((await call('dialog_status')).message, 'Proceed?');
    } }),
    ok('dialog_dismiss', {}, async () => {
      assert.equal(await text('#out'), 'confirm false');
    }, { setup: async () => { await call('click', { selector: '#confirm' }); await dialogOpen('confirm'); } }),
    extra(fails('dialog_dismiss', {}, 'INVALID_PARAMS', /no dialog is open/)),
    extra(fails('dialog_accept', {}, 'INVALID_PARAMS', /no dialog is open/)),

    // Debugging.
    {
      tool: 'console', kind: 'run',
      run: () => waitFor(async () => (await call('console')).entries
        .some((e) => e.level === 'log' && e.source === 'console-api' && e.text === 'catalogue ready'), 'the page\'s console.log'),
    },
    extra(fails('console', { level: 'loud' }, 'INVALID_PARAMS')),
    {
      tool: 'errors', kind: 'run',
      run: async () => {
        await call('click', { selector: '#throw' });
        const entries = await waitFor(async () => {
          const { entries } = await call('errors');
          return entries.some((e) => /thrown by the catalogue/.test(e.text)) && entries;
        }, 'the uncaught error');
        const thrown = entries.find((e) => /thrown by the catalogue/.test(e.text));
        assert.equal(thrown.kind, 'error');
        assert.equal(thrown.source, CATALOGUE());
      },
    },
    ok('highlight', { selector: '#go', ms: 0 }, async (r) => {
      assert.equal(r.highlighted, true);
      const { styles } = await call('get_styles', { selector: '#go', properties: ['outline-style'] });
      assert.equal(styles['outline-style'], 'solid');
    }),

    // The network.
    {
      tool: 'network_requests', kind: 'run',
      run: async () => {
        assert.equal(await page("return (await fetch('/net/json?via=catalogue')).status"), 200);
        const seen = await waitFor(async () => {
          const r = await call('network_requests', { url: 'via=catalogue' });
          return r.count === 1 && !r.requests[0].pending && r;
        }, 'the page\'s fetch in the list');
        assert.equal(seen.requests[0].status, 200);
        assert.equal(seen.requests[0].type, 'fetch');
        fetched = seen.requests[0].id;
      },
    },
    extra(fails('network_requests', { type: 'telepathy' }, 'INVALID_PARAMS')),
    ok('network_request', () => ({ id: fetched }), (r) => {
      assert.equal(r.status, 200);
      assert.equal(r.body, JSON.stringify({ hello: 'network', query: '?via=catalogue' }));
      assert.equal(r.response_headers['X-Fixture'], 'json');
    }),
    extra(fails('network_request', { id: 0 }, 'INVALID_PARAMS', /no request 0/)),
    ok('network_route', { url: '**/routed-by-catalogue', action: 'fulfill', body: 'routed' }, async (r) => {
      assert.deepEqual([r.route.action, r.route.matched], ['fulfill', 0]);
      const got = await call('eval', { script: "fetch('/routed-by-catalogue').then((r) => r.text())" });
      assert.equal(got.value, 'routed');
    }),
    extra(fails('network_route', { url: '**', action: 'abort', status: 200 }, 'INVALID_PARAMS', /status: only fulfill or continue/)),
    ok('network_route_har', () => {
      const file = path.join(files, 'catalogue.har');
      writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [{
        request: { method: 'GET', url: url('/from-har.txt') },
        response: { status: 200, headers: [], content: { mimeType: 'text/plain', text: 'from the HAR' } },
      }] } }));
      return { path: file, url: '**/from-har.txt' };
    }, async (r) => {
      assert.deepEqual([r.route.action, r.route.entries], ['har', 1]);
      const got = await call('eval', { script: "fetch('/from-har.txt').then((r) => r.text())" });
      assert.equal(got.value, 'from the HAR');
    }),
    ok('network_routes', {}, (r) => {
      assert.deepEqual(r.routes.map((x) => [x.url, x.matched]), [['**/routed-by-catalogue', 1], ['**/from-har.txt', 1]]);
    }),
    ok('network_unroute', { all: true }, (r) => assert.deepEqual(r, { removed: 2 })),

    // Handing over to the person: nobody answers this one, so it times out.
    ok('ask_person', { message: 'Nobody is here to answer this', timeout: 1000 }, (r) => {
      assert.equal(r.answer, 'timed_out');
      assert.equal(r.note, '');
      assert.ok(r.waited_ms >= 1000, show(r));
    }),
    extra(fails('ask_person', { message: '   ' }, 'INVALID_PARAMS', /message/)),

    // Saved state and files.
    ok('state_save', { name: 'catalogue' }, (r) => {
      assert.equal(r.cookies, 1);
      assert.ok(r.origins.includes(session.fixtures.origin), show(r));
      const saved = readFileSync(r.path, 'utf8');
      assert.ok(saved.includes('flavour') && saved.includes('teal'), 'the file holds the cookie and the item');
    }, { setup: async () => {
      await call('cookies_set', { name: 'flavour', value: 'oat' });
      await call('storage_local_set', { key: 'colour', value: 'teal' });
    } }),
    ok('state_load', { name: 'catalogue' }, async (r) => {
      assert.equal(r.cookies, 1);
      assert.equal(await page('document.cookie'), 'flavour=oat');
      assert.equal((await call('storage_local_get_key', { key: 'colour' })).value, 'teal');
    }, { setup: async () => {
      await call('cookies_clear');
      await call('storage_local_clear');
    } }),
    extra(fails('state_load', { name: 'missing' }, 'INVALID_PARAMS', /No such file/)),
    ok('upload', { selector: '#file', files: [note] }, async (r) => {
      assert.match(r.ref, /^e\d+$/);
      // What the description promises: the page's change handler sees the
      // name and the content (it reads the file, which takes its time). The
      // result's `files` is not checked: it is sometimes [] (read too early).
      await call('wait_for_text', { text: 'file note.txt "hello file"' });
      assert.deepEqual(await page("[...document.getElementById('file').files].map((f) => [f.name, f.size])"), [['note.txt', 10]]);
    }),
    extra(fails('upload', { selector: '#file', files: ['note.txt'] }, 'INVALID_PARAMS')),
    ok('pdf', { path: path.join(files, 'page.pdf') }, (r) => {
      assert.equal(r.path, path.join(files, 'page.pdf'));
      const bytes = readFileSync(r.path);
      assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
      assert.equal(r.bytes, bytes.length);
    }),
    extra(fails('pdf', { path: 'relative.pdf' }, 'INVALID_PARAMS')),
    img('screenshot_annotated', {}, (r) => {
      const image = r.content.find((c) => c.type === 'image');
      assertPngBase64(image.data, 'annotated screenshot');
      const legend = r.content.find((c) => c.type === 'text').text;
      assert.match(legend, /^e\d+ button "Go"$/m);
      assert.match(legend, /^e\d+ textbox "Name": Ada$/m);
    }),

    // Last: every tab, then the login.
    ok('close_all', {}, async (r) => {
      assert.deepEqual([r.closed, r.tabs], [2, 1]);
      const { tabs } = await call('tab_list');
      assert.deepEqual(tabs.map((t) => t.url), ['about:blank']);
    }, { setup: () => call('tab_new', { url: url('/links.html') }) }),
    ok('logout', {}, async (r) => {
      assert.equal(r.logged_in, false);
      errorResult(await mcp.callTool('get_url', {}), 'NOT_LOGGED_IN', 'get_url after logout');
    }),
  ];

  async function runRow(row) {
    if (row.setup) await row.setup();
    if (row.kind === 'run') return row.run();
    const args = typeof row.args === 'function' ? await row.args() : row.args;
    const what = `${row.tool}(${show(args)})`;
    if (row.kind === 'json') return row.check(await callJson(mcp, row.tool, args), args);
    if (row.kind === 'text') return row.check(await callText(mcp, row.tool, args));
    const reply = await mcp.callTool(row.tool, args);
    if (row.kind === 'image') {
      assert.ok(!reply.isError, `${what} failed: ${show(reply)}`);
      assert.ok(reply.content.some((c) => c.type === 'image'), `${what}: an image block: ${show(reply)}`);
      return row.check(reply);
    }
    const message = errorResult(reply, row.code, what);
    if (row.message) assert.match(message, row.message, what);
  }

  it('has one main row per tool, in order, close_all and logout last', () => {
    const main = TABLE.filter((r) => !r.extra).map((r) => r.tool);
    assert.deepEqual([...main].sort(), [...PLAN, ...ADDED].sort());
    assert.deepEqual(main.slice(-2), LAST);
    for (const r of TABLE) assert.ok(PLAN.includes(r.tool) || ADDED.includes(r.tool), r.tool);
    // Each tool's refusals follow its main row.
    for (const [i, r] of TABLE.entries()) {
      if (r.extra) assert.ok(main.indexOf(r.tool) <= TABLE.slice(0, i).filter((x) => !x.extra).length - 1, `${r.tool}: extra row before its main row`);
    }
  });

  it('set_headers {} removes the headers from a reload too', async () => {
    await call('set_headers', { headers: { 'X-Catalogue': 'yes' } });
    await call('open', { url: url('/echo') });
    assert.equal(JSON.parse(await text('#echo')).headers['x-catalogue'], 'yes', 'the open carried the header');
    await call('reload');
    assert.equal(JSON.parse(await text('#echo')).headers['x-catalogue'], 'yes', 'a reload carries the header set');
    await call('set_headers', { headers: {} });
    await call('reload');
    const echoed = JSON.parse(await text('#echo'));
    assert.equal(echoed.headers['x-catalogue'], undefined, 'the reload still sent the removed header');
    assert.equal(echoed.headers['cache-control'], 'no-cache', 'the reload asked past the cache');
    await call('reload');
    assert.equal(JSON.parse(await text('#echo')).headers['x-catalogue'], undefined, 'a second reload sent it again');
    // A page gone back to was loaded with the header: its reload goes without.
    await call('set_headers', { headers: { 'X-Catalogue': 'yes' } });
    await call('open', { url: url('/echo?first') });
    await call('set_headers', { headers: {} });
    await call('open', { url: url('/echo?second') });
    await call('back');
    await call('reload');
    const back = JSON.parse(await text('#echo'));
    assert.deepEqual([back.url, back.headers['x-catalogue']], ['/echo?first', undefined], 'the reload after back sent the removed header');
  });

  it('a reload posts a form\'s page again', async () => {
    await call('set_headers', { headers: {} });
    await call('open', { url: url('/echo') });
    await page(`const f = document.createElement('form');
      f.method = 'post'; f.action = '/echo?posted';
      f.innerHTML = '<input name="q" value="1"><button id="send">Send</button>';
      document.body.append(f); 1`);
    assert.equal((await call('click', { selector: '#send' })).navigated, true);
    assert.equal(JSON.parse(await text('#echo')).method, 'POST');
    await call('reload');
    const echoed = JSON.parse(await text('#echo'));
    assert.deepEqual([echoed.method, echoed.url], ['POST', '/echo?posted'], 'the reload did not post the form again');
  });

  it('a click lands inside a same-origin frame below the first screen', async () => {
    await openCatalogue();
    await call('wait_for_fn', { script: "document.querySelector('iframe').contentDocument?.readyState === 'complete'" });
    await page("document.querySelector('iframe').style.marginTop = '3000px'; 1");
    await call('frame_switch', { selector: 'iframe' });
    try {
      assert.equal((await call('click', { selector: 'button' })).clicked, true);
      assert.equal(await text('#out'), 'inner clicked true', 'the inner button saw no click');
    } finally {
      await call('frame_main');
    }
    assert.ok((await page('scrollY')) > 2000, 'the top page was not scrolled to the frame');
  });

  it('a click by a main-page ref lands inside a same-origin frame below the first screen', async () => {
    await openCatalogue();
    await call('wait_for_fn', { script: "document.querySelector('iframe').contentDocument?.readyState === 'complete'" });
    await page("document.querySelector('iframe').style.marginTop = '3000px'; 1");
    const snap = await callText(mcp, 'snapshot');
    const ref = /(e\d+) button "Inner button"/.exec(snap)?.[1];
    assert.ok(ref, `no ref for the inner button in ${snap}`);
    assert.equal((await call('click', { ref })).clicked, true);
    assert.equal(await page("document.querySelector('iframe').contentDocument.getElementById('out').textContent"),
      'inner clicked true', 'the inner button saw no click');
    assert.ok((await page('scrollY')) > 2000, 'the top page was not scrolled to the frame');
  });

  it('a click the page never receives is an error, not a success', async () => {
    await openCatalogue();
    // The page is busy past the browser's wait for the click's events.
    await page(`document.getElementById('go').addEventListener('pointerdown', () => {
      const end = performance.now() + 4000; while (performance.now() < end) {}
    }); 1`);
    errorResult(await mcp.callTool('click', { selector: '#go' }), 'TIMEOUT', 'a click the page did not take in time');
    // It arrived in the end: the page goes on as usual.
    await call('wait_for_text', { text: 'clicked true' });
  });

  it('each tool does what it says, or answers its documented error', { timeout: 200_000 }, async (t) => {
    for (const row of TABLE) {
      const name = `${row.extra ? '  (refusal) ' : ''}${row.tool}${row.kind === 'error' ? ` -> ${row.code}` : ''}`;
      await t.test(name, withBrowserLog(() => session.browser, () => runRow(row)));
    }
  });
});

// Before login, only the ungated tools answer; every other one says
// NOT_LOGGED_IN with the same message, over each transport.
for (const transport of TRANSPORTS) describe(`the login gate over ${transport}`, { timeout: 120_000 }, () => {
  let browser;
  let d;
  before(async () => {
    browser = await startBrowser();
    d = await connectDriver(browser, transport);
  }, { timeout: 90_000 });
  after(async () => {
    await d?.close();
    await browser?.stop();
  });

  it('exactly the pinned tools answer before login; every other listed tool answers NOT_LOGGED_IN', { timeout: 60_000 }, withBrowserLog(() => browser, async () => {
    const mcp = await connectMcp(browser);
    let listed;
    try {
      await mcp.callTool('tools_enable', { family: 'all' });
      listed = (await mcp.listTools()).map((t) => t.name).sort();
    } finally { await mcp.close().catch(() => {}); }
    assert.equal(listed.length, CATALOGUE_SIZE);
    const answered = [];
    for (const name of listed) {
      const out = await d.outcome(name, {});
      if (out.ok || out.code !== 'NOT_LOGGED_IN') {
        answered.push(name);
        continue;
      }
      assert.equal(d.failed(out.raw, 'NOT_LOGGED_IN', `${name} before login`), NOT_LOGGED_IN_MESSAGE, name);
    }
    assert.deepEqual(answered, UNGATED);
  }));

  it('the pinned tools work before login as documented', { timeout: 30_000 }, withBrowserLog(() => browser, async () => {
    assert.equal((await d.call('login_status')).logged_in, false);
    assert.equal((await d.call('logout')).logged_in, false);
    await d.error('login', {}, 'INVALID_PARAMS');
    await d.error('switch_identity', {}, 'INVALID_PARAMS');
    // batch carries its commands; each one meets the gate itself.
    const batch = await d.call('batch', { commands: [{ tool: 'login_status' }, { tool: 'get_url' }] });
    assert.deepEqual([batch.ok, batch.run, batch.failed], [false, 2, 1]);
    assert.equal(batch.results[0].result.logged_in, false);
    assert.deepEqual(batch.results[1].error, { code: 'NOT_LOGGED_IN', message: NOT_LOGGED_IN_MESSAGE });
    assert.equal((await d.call('login_status')).logged_in, false, 'nothing logged in on the way');
  }));
});

describe('--tools offers a subset', { timeout: 120_000 }, () => {
  it('core gives the 30 basic tools; others are refused saying why', async () => {
    const browser = await startBrowser({ args: ['--tools', 'core,cookies_get,batch'] });
    const mcp = await connectMcp(browser);
    try {
      const tools = await mcp.listTools();
      assert.equal(tools.length, 32);
      assert.ok(tools.some((t) => t.name === 'cookies_get'));
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      // MCP answers a tool it does not list with a protocol error.
      await assert.rejects(mcp.callTool('pdf', {}), /-32602.*tool pdf is not offered.*--tools/);
      // A batch reaches the dispatch, which says the same as a tool error.
      const batch = await callJson(mcp, 'batch', { commands: [{ tool: 'pdf' }] });
      assert.equal(batch.results[0].error.code, 'UNKNOWN_TOOL');
      assert.match(batch.results[0].error.message, /not offered.*--tools/);
    } finally {
      await mcp.close().catch(() => {});
      await browser.stop();
    }
  });

  it('a mistyped tool name stops the start-up with a clear message', async () => {
    await assert.rejects(startBrowser({ args: ['--tools', 'snapshto'] }), /no tool or set is called "snapshto"/);
  });
});
