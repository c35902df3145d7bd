// The whole catalogue: tools/list has exactly the plan's 100 tools, each is
// documented (description, README table) and callable through the dispatch,
// and --tools offers a subset.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { REPO_ROOT, startBrowser } from './support/browser.mjs';
import { TEST_NSEC, callJson, connectMcp } from './support/mcp.mjs';
import { startLoggedIn } from './support/session.mjs';

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
// Called last: they end the login or every tab.
const LAST = ['close_all', 'logout'];

describe('the tool catalogue', { timeout: 240_000 }, () => {
  let session;
  let mcp;
  before(async () => {
    session = await startLoggedIn();
    ({ mcp } = session);
  }, { timeout: 90_000 });
  after(async () => { await session?.stop(); });

  it('lists exactly the plan\'s 100 tools, each described and in the README, under 12,000 tokens', async () => {
    const tools = await mcp.listTools();
    assert.equal(PLAN.length, 100);
    assert.deepEqual(tools.map((t) => t.name).sort(), [...PLAN].sort());
    const readme = readFileSync(`${REPO_ROOT}/README.md`, 'utf8');
    for (const tool of tools) {
      assert.ok(tool.description.length >= 30, `${tool.name} has a real description`);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(readme.includes(`| \`${tool.name}\` |`), `${tool.name} is in the README's tool table`);
    }
    const tokens = encode(JSON.stringify(tools)).length;
    assert.ok(tokens < 12_000, `tools/list costs ${tokens} tokens`);
  });

  it('reaches every tool through the dispatch: a result, or a tool error with a stable code', { timeout: 200_000 }, async () => {
    const order = [...PLAN.filter((n) => !LAST.includes(n)), ...LAST];
    for (const name of order) {
      const result = await mcp.callTool(name, {});
      if (!result.isError) continue;
      const code = result.structuredContent?.error?.code;
      assert.ok(code, `${name}: an error carries a code: ${JSON.stringify(result).slice(0, 300)}`);
      assert.ok(!['UNKNOWN_TOOL', 'INTERNAL'].includes(code), `${name}: ${code}: ${result.content[0].text}`);
      assert.ok(result.content[0].text.startsWith(`${code}: `), `${name}: the text starts with its code`);
    }
  });
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
