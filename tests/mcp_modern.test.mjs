// MCP 2026-07-28 on /mcp, request by request: the envelope every request
// carries, the headers that mirror it, the error each rule gives (with its
// HTTP status), discovery, the tool list, tab handles instead of a session,
// log messages, subscriptions/listen and cancellation.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { connectPanel } from './support/agent.mjs';
import {
  LISTED_SIZE, LATEST_PROTOCOL, MODERN_PROTOCOL, PROTOCOL_VERSIONS, TEST_NSEC,
  connectMcp, jsonResult, mcpFetch, modernCall, modernMeta, modernPost, parseSse,
} from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';
import { waitFor } from './support/wait.mjs';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';

// What tools/list may cost a model here, in cl100k tokens: the sessions'
// budget (tests/catalog.test.mjs) plus the tab handle of the tab tools.
const CATALOGUE_TOKEN_BUDGET = 6400;

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

/** The JSON-RPC error of a refused request, with its status checked. */
function refused(reply, status, code, what) {
  assert.equal(reply.status, status, `${what}: HTTP ${reply.status}: ${reply.text}`);
  assert.equal(reply.message?.error?.code, code, `${what}: ${reply.text}`);
  assert.equal(reply.message.id, reply.id, `${what}: the error names the request's id`);
  assert.ok(reply.message.error.message.length > 10, `${what}: says why`);
  return reply.message.error;
}

const withoutKey = (object, key) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

/** Opens subscriptions/listen; gives its messages as they come, and abort(). */
function listen(browser, id, notifications) {
  const controller = new AbortController();
  const messages = [];
  const body = {
    jsonrpc: '2.0', id, method: 'subscriptions/listen',
    params: { _meta: modernMeta(), notifications },
  };
  const done = fetch(browser.mcpUrl, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      Authorization: `Bearer ${browser.token}`,
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'MCP-Protocol-Version': MODERN_PROTOCOL,
      'Mcp-Method': 'subscriptions/listen',
    },
    body: JSON.stringify(body),
  }).then(async (res) => {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      buffer += decoder.decode(value, { stream: true });
      const cut = buffer.lastIndexOf('\n\n');
      if (cut < 0) continue;
      for (const event of parseSse(buffer.slice(0, cut + 2))) {
        if (event.data.trim()) messages.push(JSON.parse(event.data));
      }
      buffer = buffer.slice(cut + 2);
    }
  }).catch((e) => { if (e.name !== 'AbortError') throw e; });
  return { messages, abort: () => controller.abort(), done };
}

/** Sends a request whose routing header appears twice (fetch would join them). */
function postWithTwoHeaders(browser, body, name, values) {
  const u = new URL(browser.mcpUrl);
  const raw = JSON.stringify(body);
  const headers = [
    'Host', u.host,
    'Authorization', `Bearer ${browser.token}`,
    'Content-Type', 'application/json',
    'Accept', 'application/json, text/event-stream',
    'MCP-Protocol-Version', MODERN_PROTOCOL,
    'Content-Length', String(Buffer.byteLength(raw)),
  ];
  if (name !== 'Mcp-Method') headers.push('Mcp-Method', body.method);
  for (const v of values) headers.push(name, v);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, message: JSON.parse(text), id: body.id, text }));
    });
    req.on('error', reject);
    req.end(raw);
  });
}

describe('MCP 2026-07-28 (stateless) on /mcp', { timeout: 300_000 }, () => {
  let browser;
  let fixtures;
  let panel;
  const test = (name, fn, opts = {}) => it(name, { timeout: 60_000, ...opts }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}, opts) => modernCall(browser, tool, args, opts);
  const json = async (tool, args = {}, opts) => jsonResult(await call(tool, args, opts), tool);
  /** The next panel push of `event` that satisfies `check`. */
  async function panelEvent(event, check, what) {
    for (;;) {
      const push = await panel.nextUnmatched({ timeout: 20_000 }).catch(() => {
        throw new Error(`no panel ${event} push: ${what}`);
      });
      if (push.event === event && check(push.data)) return push.data;
    }
  }

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser();
    panel = await connectPanel(browser);
  }, { timeout: 90_000 });
  after(async () => {
    await panel?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  test('server/discover names every served revision, the capabilities and the server', async () => {
    const reply = await modernPost(browser, 'server/discover');
    assert.equal(reply.status, 200, reply.text);
    assert.match(reply.contentType, /^application\/json/);
    assert.equal(reply.sessionId, undefined, 'no session is minted');
    const result = reply.message.result;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.supportedVersions, [MODERN_PROTOCOL, ...[...PROTOCOL_VERSIONS].reverse()]);
    assert.deepEqual(result.capabilities.tools, { listChanged: true });
    assert.equal(result._meta[SERVER_INFO].name, 'sovereign-browser');
    assert.match(result._meta[SERVER_INFO].version, /^\d+\.\d+\.\d+/);
    assert.match(result.instructions, /login/);
    assert.match(result.instructions, /tab id/);
    // What discovery answers is the same for every caller for a minute.
    assert.equal(result.ttlMs, 60_000);
    assert.equal(result.cacheScope, 'public');
  });

  test('a request missing _meta or one of its required fields is INVALID_PARAMS, HTTP 400', async () => {
    refused(await modernPost(browser, 'server/discover', {}, { meta: null }), 400, -32602, 'no _meta');
    refused(await modernPost(browser, 'server/discover', {}, { meta: withoutKey(modernMeta(), META_VERSION) }),
      400, -32602, 'no protocolVersion');
    refused(await modernPost(browser, 'server/discover', {}, { meta: withoutKey(modernMeta(), META_CAPABILITIES) }),
      400, -32602, 'no clientCapabilities');
    const noClient = await modernPost(browser, 'server/discover', {}, { meta: withoutKey(modernMeta(), META_CLIENT) });
    assert.equal(noClient.status, 200, `clientInfo is optional: ${noClient.text}`);
    assert.equal(noClient.message.result.resultType, 'complete');
  });

  test('a version not served is UnsupportedProtocolVersion with the served list, HTTP 400', async () => {
    const discovered = (await modernPost(browser, 'server/discover')).message.result.supportedVersions;
    const reply = await modernPost(browser, 'server/discover', {}, {
      meta: modernMeta({ [META_VERSION]: 'v999.0.0' }),
      headers: { 'MCP-Protocol-Version': 'v999.0.0' },
    });
    const error = refused(reply, 400, -32022, 'unknown version');
    assert.equal(error.data.requested, 'v999.0.0');
    assert.ok(error.data.supported.includes(MODERN_PROTOCOL));
    assert.ok(error.data.supported.every((v) => discovered.includes(v)), JSON.stringify(error.data));
  });

  test('headers that do not mirror the body are HeaderMismatch, HTTP 400', async () => {
    const mismatch = (what, opts, method = 'server/discover', params = {}) =>
      modernPost(browser, method, params, opts).then((r) => refused(r, 400, -32020, what));
    await mismatch('version header differs from _meta', { headers: { 'MCP-Protocol-Version': LATEST_PROTOCOL } });
    await mismatch('version header missing', { headers: { 'MCP-Protocol-Version': null } });
    await mismatch('Mcp-Method missing', { headers: { 'Mcp-Method': null } });
    await mismatch('Mcp-Method differs', { headers: { 'Mcp-Method': 'tools/list' } });
    const getUrl = { name: 'get_url', arguments: {} };
    await mismatch('Mcp-Name missing', { headers: { 'Mcp-Name': null } }, 'tools/call', getUrl);
    await mismatch('Mcp-Name differs', { headers: { 'Mcp-Name': 'open' } }, 'tools/call', getUrl);
    await mismatch('Mcp-Name not base64', { headers: { 'Mcp-Name': '=?base64?%%%?=' } }, 'tools/call', getUrl);
    const encoded = await modernPost(browser, 'tools/call', getUrl, {
      headers: { 'Mcp-Name': `=?base64?${Buffer.from('get_url').toString('base64')}?=` },
    });
    assert.equal(encoded.status, 200, `a base64 Mcp-Name is decoded: ${encoded.text}`);
    const twice = await postWithTwoHeaders(browser,
      { jsonrpc: '2.0', id: 77, method: 'server/discover', params: { _meta: modernMeta() } },
      'Mcp-Method', ['server/discover', 'server/discover']);
    refused(twice, 400, -32020, 'Mcp-Method sent twice');
  });

  test('methods the revision removed, and unknown ones, are Method not found, HTTP 404', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe',
      'resources/unsubscribe', 'completion/complete', 'unknown/method']) {
      refused(await modernPost(browser, method), 404, -32601, method);
    }
  });

  test('prompts and resources: empty lists with cache hints, nothing to get or read', async () => {
    for (const [method, key] of [['prompts/list', 'prompts'], ['resources/list', 'resources'],
      ['resources/templates/list', 'resourceTemplates']]) {
      const reply = await modernPost(browser, method);
      assert.equal(reply.status, 200, `${method}: ${reply.text}`);
      assert.deepEqual(reply.message.result[key], [], method);
      assert.equal(reply.message.result.resultType, 'complete');
      assert.ok(Number.isInteger(reply.message.result.ttlMs), `${method}: ${reply.text}`);
    }
    const discovered = (await modernPost(browser, 'server/discover')).message.result.capabilities;
    assert.deepEqual(discovered.prompts, {});
    assert.deepEqual(discovered.resources, {});
    refused(await modernPost(browser, 'resources/read', { uri: 'file:///etc/passwd' }), 400, -32602, 'resources/read');
    refused(await modernPost(browser, 'prompts/get', { name: 'x' }), 400, -32602, 'prompts/get');
  });

  test('an unknown tool is INVALID_PARAMS, HTTP 400; a bad log level too', async () => {
    const unknown = await modernPost(browser, 'tools/call', { name: 'no_such_tool', arguments: {} });
    refused(unknown, 400, -32602, 'unknown tool');
    const level = await modernPost(browser, 'tools/list', {}, {
      meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'loud' }),
    });
    refused(level, 400, -32602, 'log level');
  });

  test('GET and DELETE are not part of the revision: 405, Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await mcpFetch(browser, {
        method, headers: { 'MCP-Protocol-Version': MODERN_PROTOCOL, Accept: 'text/event-stream' },
      });
      assert.equal(r.status, 405, `${method}: HTTP ${r.status}`);
      assert.equal(r.headers.get('allow'), 'POST');
    }
  });

  test('tools/list: the same tools in the same order every time, tab handles, cache hints', async () => {
    const first = await modernPost(browser, 'tools/list');
    const second = await modernPost(browser, 'tools/list');
    const result = first.message.result;
    assert.equal(result.resultType, 'complete');
    assert.equal(result._meta[SERVER_INFO].name, 'sovereign-browser');
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs > 0, `ttlMs ${result.ttlMs}`);
    assert.ok(['public', 'private'].includes(result.cacheScope));
    assert.deepEqual(second.message.result.tools, result.tools, 'deterministic');
    assert.equal(result.tools.length, LISTED_SIZE);
    const legacy = await connectMcp(browser);
    try {
      const names = (await legacy.listTools()).map((t) => t.name);
      assert.deepEqual(result.tools.map((t) => t.name), names, 'the same tools as sessions get, in their order');
    } finally {
      await legacy.close();
    }
    const byName = Object.fromEntries(result.tools.map((t) => [t.name, t]));
    for (const tool of ['click', 'snapshot', 'open', 'get_url', 'eval', 'frame_switch', 'close']) {
      assert.deepEqual(byName[tool].inputSchema.properties.tab, { type: 'integer' }, `${tool} takes a tab id`);
    }
    for (const tool of ['login', 'tab_list', 'tab_new', 'close_all', 'batch']) {
      assert.equal(byName[tool].inputSchema.properties?.tab, undefined, `${tool} acts on no one tab`);
    }
    const tokens = encode(JSON.stringify(result.tools)).length;
    assert.ok(tokens <= CATALOGUE_TOKEN_BUDGET, `tools/list costs ${tokens} tokens, over ${CATALOGUE_TOKEN_BUDGET}`);
  });

  test('before login: NOT_LOGGED_IN, or for a client that shows forms, a question to the person', async () => {
    const early = await call('get_url');
    assert.equal(early.isError, true);
    assert.equal(early.structuredContent.error.code, 'NOT_LOGGED_IN');

    const forms = modernMeta({ [META_CAPABILITIES]: { elicitation: {} } });
    const asking = await modernPost(browser, 'tools/call', { name: 'get_url', arguments: {} }, { meta: forms });
    assert.equal(asking.status, 200, asking.text);
    const question = asking.message.result;
    assert.equal(question.resultType, 'input_required');
    assert.equal(question.inputRequests.login.method, 'elicitation/create');
    assert.equal(question.inputRequests.login.params.mode, 'form');
    assert.match(question.inputRequests.login.params.message, /control panel/);
    assert.deepEqual(question.inputRequests.login.params.requestedSchema, { type: 'object', properties: {} });
    const urlOnly = modernMeta({ [META_CAPABILITIES]: { elicitation: { url: {} } } });
    assert.equal((await call('get_url', {}, { meta: urlOnly })).structuredContent.error.code, 'NOT_LOGGED_IN',
      'no form, no question');
    const retry = (action) => modernPost(browser, 'tools/call',
      { name: 'get_url', arguments: {}, inputResponses: { login: { action } } }, { meta: forms });
    const declined = (await retry('decline')).message.result;
    assert.equal(declined.resultType, 'complete');
    assert.match(declined.structuredContent.error.message, /chose not to log in/);
    const accepted = (await retry('accept')).message.result;
    assert.equal(accepted.resultType, 'complete');
    assert.equal(accepted.structuredContent.error.code, 'NOT_LOGGED_IN', 'a client\'s accept logs nobody in');
    assert.equal((await call('login_status', {}, { meta: forms })).structuredContent.logged_in, false,
      'an ungated tool is never held back');

    const login = await json('login', { method: 'local', nsec: TEST_NSEC });
    assert.equal(login.logged_in, true, JSON.stringify(login));
    assert.equal((await call('get_title', {}, { meta: forms })).isError, undefined, 'logged in: no question');
  });

  test('tab handles: each call acts on the tab it names, else on the tab in front', async () => {
    const opened = await json('open', { url: fixtures.url('/form.html') });
    const first = opened.tab;
    assert.ok(Number.isInteger(first), `open names its tab: ${JSON.stringify(opened)}`);
    const snapshot = await call('snapshot', { tab: first });
    assert.equal(snapshot._meta['browser.sovereign/tab'], first, 'a text result names its tab in _meta');
    const name = refOf(snapshot.content[0].text, 'textbox', 'Name');
    const filled = await json('fill', { ref: name, value: 'Ada', tab: first });
    assert.equal(filled.tab, first);

    const second = await json('tab_new', { url: fixtures.url('/links.html') });
    assert.notEqual(second.tab, first);
    assert.equal((await json('get_url')).url, fixtures.url('/links.html'), 'no tab named: the front tab');
    assert.equal((await json('get_url')).tab, second.tab);
    const value = await json('get_value', { ref: name, tab: first });
    assert.equal(value.value, 'Ada', 'the first tab, behind, acted on by its id');
    assert.equal((await json('get_url', { tab: first })).url, fixtures.url('/form.html'));
    const tabs = await json('tab_list');
    assert.deepEqual(tabs.tabs.map((t) => t.id).sort(), [first, second.tab].sort());
    assert.equal(tabs.tabs.find((t) => t.front).id, second.tab);

    const closed = await call('get_url', { tab: 987654 });
    assert.equal(closed.structuredContent.error.code, 'NO_TAB');
    assert.match(closed.structuredContent.error.message, /tab_list/);
    const wrong = await call('get_url', { tab: 'first' });
    assert.equal(wrong.structuredContent.error.code, 'INVALID_PARAMS');
    assert.equal(wrong.structuredContent.error.field, 'tab');

    await json('close', { tab: second.tab });
    assert.equal((await json('get_url')).tab, first, 'the remaining tab is in front');
  });

  test('a session of 2025-11-25 keeps its own current tab beside stateless calls', async () => {
    const legacy = await connectMcp(browser);
    try {
      const mine = jsonResult(await legacy.callTool('tab_new', { url: fixtures.url('/interact.html') }));
      assert.equal(mine.tab, undefined, 'session results are as they were');
      const other = (await json('tab_list')).tabs.find((t) => t.url !== fixtures.url('/interact.html'));
      await json('tab_switch', { index: other.index });
      await json('open', { url: fixtures.url('/links.html') });
      const front = (await json('tab_list')).tabs.find((t) => t.front);
      assert.equal(front.id, other.id, 'stateless calls act on the tab in front');
      assert.equal(front.url, fixtures.url('/links.html'));
      assert.equal(jsonResult(await legacy.callTool('get_url')).url, fixtures.url('/interact.html'),
        'the session still acts on its own tab');
      assert.equal(jsonResult(await legacy.callTool('get_url', { tab: other.id })).url, fixtures.url('/links.html'),
        'a session may name another tab');
      assert.equal(jsonResult(await legacy.callTool('get_url')).url, fixtures.url('/interact.html'),
        'without switching to it');
      jsonResult(await legacy.callTool('close'));
    } finally {
      await legacy.close();
    }
  });

  test('log messages only when the request asks, at or above its level, before the result', async () => {
    const quiet = await modernPost(browser, 'tools/call', { name: 'get_title', arguments: {} });
    assert.match(quiet.contentType, /^application\/json/);
    assert.equal(quiet.messages.length, 1);
    const loud = await modernPost(browser, 'tools/call', { name: 'get_title', arguments: {} }, {
      meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'info' }),
    });
    assert.match(loud.contentType, /^text\/event-stream/);
    assert.equal(loud.messages.length, 2, loud.text);
    const [log, response] = loud.messages;
    assert.equal(log.method, 'notifications/message');
    assert.equal(log.params.level, 'info');
    assert.equal(log.params.data.tool, 'get_title');
    assert.equal(response.id, loud.id);
    assert.equal(response.result.resultType, 'complete');
    const warnings = await modernPost(browser, 'tools/call', { name: 'get_title', arguments: {} }, {
      meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'warning' }),
    });
    assert.equal(warnings.messages.length, 1, 'a success logs nothing at warning');
    const failing = await modernPost(browser, 'tools/call', { name: 'click', arguments: { ref: 'e99999' } }, {
      meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'warning' }),
    });
    assert.equal(failing.messages[0].params.level, 'warning', failing.text);
    assert.ok(failing.messages[0].params.data.code, failing.text);
  });

  test('subscriptions/listen: acknowledged first, then list changes, tagged with its id', async () => {
    const tools = listen(browser, 'listen-tools', { toolsListChanged: true, promptsListChanged: true });
    const other = listen(browser, 4242, { resourcesListChanged: true });
    try {
      await waitFor(() => tools.messages.length > 0 && other.messages.length > 0, 'the acknowledgements');
      const ack = tools.messages[0];
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.equal(ack.params._meta[SUBSCRIPTION], 'listen-tools');
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true }, 'prompts are not served');
      assert.deepEqual(other.messages[0].params.notifications, {});
      assert.equal(other.messages[0].params._meta[SUBSCRIPTION], 4242);

      const allowed = await panel.call('nostr_assistant_answers', { allowed: true });
      assert.equal(allowed.ok, true, JSON.stringify(allowed));
      await waitFor(() => tools.messages.length > 1, 'notifications/tools/list_changed');
      const change = tools.messages[1];
      assert.equal(change.method, 'notifications/tools/list_changed');
      assert.equal(change.params._meta[SUBSCRIPTION], 'listen-tools');
      const listed = (await modernPost(browser, 'tools/list')).message.result.tools.map((t) => t.name);
      assert.ok(listed.includes('nostr_prompts'));
      await panel.call('nostr_assistant_answers', { allowed: false });
      await waitFor(() => tools.messages.length > 2, 'the second list_changed');
      assert.equal(other.messages.length, 1, 'a stream that did not ask for tool changes gets none');
    } finally {
      tools.abort();
      other.abort();
    }
    const plain = await modernPost(browser, 'subscriptions/listen', { notifications: {} }, { accept: 'application/json' });
    assert.equal(plain.status, 406, 'a listen is a stream');
  });

  test('stateless clients appear in the panel by clientInfo, and their calls in its log', async () => {
    const meta = modernMeta({ [META_CLIENT]: { name: 'panel-listed-client', version: '3.1' } });
    await call('get_title', {}, { meta });
    const record = await panelEvent('call', (c) => c.client === 'panel-listed-client', 'its call');
    assert.equal(record.tool, 'get_title');
    assert.equal(record.transport, 'mcp');
    const state = await panelEvent('state',
      (s) => s.sessions.some((x) => x.client?.name === 'panel-listed-client'), 'the client in the session list');
    const listed = state.sessions.find((x) => x.client?.name === 'panel-listed-client');
    assert.equal(listed.protocol_version, MODERN_PROTOCOL);
    assert.equal(listed.stateless, true);
  });

  test('closing the response stream cancels the call', async () => {
    const controller = new AbortController();
    const body = {
      jsonrpc: '2.0', id: 'long-wait', method: 'tools/call',
      params: { name: 'wait', arguments: { ms: 30_000 }, _meta: modernMeta({ [META_CLIENT]: { name: 'cancelling-client', version: '1' } }) },
    };
    const started = Date.now();
    const pending = fetch(browser.mcpUrl, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        Authorization: `Bearer ${browser.token}`, Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json', 'MCP-Protocol-Version': MODERN_PROTOCOL,
        'Mcp-Method': 'tools/call', 'Mcp-Name': 'wait',
      },
      body: JSON.stringify(body),
    }).then((r) => r.text()).catch((e) => e.name);
    await panelEvent('state', (s) => s.sessions.some((x) => x.client?.name === 'cancelling-client'),
      'the call to start');
    controller.abort();
    assert.equal(await pending, 'AbortError');
    const record = await panelEvent('call', (c) => c.client === 'cancelling-client', 'the cancelled call');
    assert.equal(record.tool, 'wait');
    assert.equal(record.code, 'CANCELLED');
    assert.ok(Date.now() - started < 25_000, 'logged when the client left, not when the wait would have ended');
  });
});
