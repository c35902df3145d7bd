// Wire-level checks of the MCP Streamable HTTP endpoint (/mcp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import {
  CORE_TOOLS, LATEST_PROTOCOL, PROTOCOL_VERSIONS,
  connectMcp, initializeParams, mcpFetch, mcpPost, notification, openSession, parseSse, rpc,
} from './support/mcp.mjs';

describe('MCP protocol (/mcp)', { timeout: 240_000 }, () => {
  let browser;
  const test = (name, fn, opts = {}) => it(name, { timeout: 30_000, ...opts }, withBrowserLog(() => browser, fn));

  before(async () => { browser = await startBrowser(); }, { timeout: 90_000 });
  after(async () => { await browser?.stop(); });

  for (const version of PROTOCOL_VERSIONS) {
    test(`initialize with ${version} echoes the version and returns a session id`, async () => {
      const r = await mcpPost(browser, rpc('initialize', initializeParams(version)));
      assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text}`);
      assert.ok(r.sessionId && r.sessionId.length >= 16,
        `expected an unguessable Mcp-Session-Id header, got ${JSON.stringify(r.sessionId)}`);
      const result = r.message?.result;
      assert.ok(result, `no result in ${r.text}`);
      assert.equal(result.protocolVersion, version);
      assert.equal(result.serverInfo?.name, 'sovereign-browser');
      assert.ok(result.capabilities?.tools, `capabilities without tools: ${JSON.stringify(result.capabilities)}`);
    });
  }

  test('two initializes get different session ids', async () => {
    const a = await mcpPost(browser, rpc('initialize', initializeParams()));
    const b = await mcpPost(browser, rpc('initialize', initializeParams()));
    assert.ok(a.sessionId && b.sessionId, 'missing Mcp-Session-Id');
    assert.notEqual(a.sessionId, b.sessionId);
  });

  test(`an unknown protocol version is answered with ${LATEST_PROTOCOL}`, async () => {
    const r = await mcpPost(browser, rpc('initialize', initializeParams('1999-01-01')));
    assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text}`);
    assert.equal(r.message?.result?.protocolVersion, LATEST_PROTOCOL);
  });

  test('replies as SSE when Accept includes text/event-stream', async () => {
    const { sessionId } = await openSession(browser);
    const r = await mcpPost(browser, rpc('ping'), { sessionId, accept: 'application/json, text/event-stream' });
    assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text}`);
    assert.match(r.contentType, /^text\/event-stream/);
    const events = parseSse(r.text).filter((e) => e.data.trim() !== '');
    assert.equal(events.length, 1, `expected one data event, got: ${r.text}`);
    assert.equal(events[0].event, 'message', `event name: ${r.text}`);
    assert.match(r.text, /(^|\n)event: message\r?\ndata: /, `SSE framing: ${JSON.stringify(r.text)}`);
    const msg = JSON.parse(events[0].data);
    assert.equal(msg.jsonrpc, '2.0');
    assert.deepEqual(msg.result, {});
  });

  test('replies as JSON when Accept is only application/json', async () => {
    const { sessionId } = await openSession(browser, LATEST_PROTOCOL, { accept: 'application/json' });
    const req = rpc('ping');
    const r = await mcpPost(browser, req, { sessionId, accept: 'application/json' });
    assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text}`);
    assert.match(r.contentType, /^application\/json/);
    const msg = JSON.parse(r.text);
    assert.equal(msg.id, req.id);
    assert.deepEqual(msg.result, {});
  });

  test('notifications/initialized gets 202 with an empty body', async () => {
    const init = await mcpPost(browser, rpc('initialize', initializeParams()));
    const r = await mcpPost(browser, notification('notifications/initialized'), { sessionId: init.sessionId });
    assert.equal(r.status, 202, `HTTP ${r.status}: ${r.text}`);
    assert.equal(r.text, '');
  });

  test('ping answers an empty result', async () => {
    const { sessionId } = await openSession(browser);
    const req = rpc('ping');
    const r = await mcpPost(browser, req, { sessionId });
    assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text}`);
    assert.equal(r.message?.id, req.id);
    assert.deepEqual(r.message?.result, {});
  });

  test('resources, resource templates and prompts are empty lists', async () => {
    const { sessionId } = await openSession(browser);
    const cases = [
      ['resources/list', 'resources'],
      ['resources/templates/list', 'resourceTemplates'],
      ['prompts/list', 'prompts'],
    ];
    for (const [method, key] of cases) {
      const r = await mcpPost(browser, rpc(method, {}), { sessionId });
      assert.equal(r.status, 200, `${method}: HTTP ${r.status}: ${r.text}`);
      assert.ok(!r.message?.error, `${method}: error ${JSON.stringify(r.message?.error)}`);
      assert.deepEqual(r.message?.result?.[key], [], `${method}: ${r.text}`);
    }
  });

  test('logging/setLevel is acknowledged', async () => {
    const { sessionId } = await openSession(browser);
    const r = await mcpPost(browser, rpc('logging/setLevel', { level: 'debug' }), { sessionId });
    assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text}`);
    assert.ok(!r.message?.error, `error: ${JSON.stringify(r.message?.error)}`);
    assert.deepEqual(r.message?.result, {});
  });

  test('an unknown session id gets 404', async () => {
    const r = await mcpPost(browser, rpc('ping'), { sessionId: 'no-such-session-0123456789abcdef' });
    assert.equal(r.status, 404, `HTTP ${r.status}: ${r.text}`);
  });

  test('DELETE ends a session: 200, then the session is gone (404)', async () => {
    const { sessionId } = await openSession(browser);
    const before = await mcpPost(browser, rpc('ping'), { sessionId });
    assert.equal(before.status, 200, `ping before DELETE: HTTP ${before.status}`);
    const del = await mcpFetch(browser, { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId } });
    assert.equal(del.status, 200, `DELETE: HTTP ${del.status}: ${del.text}`);
    const afterDel = await mcpPost(browser, rpc('ping'), { sessionId });
    assert.equal(afterDel.status, 404, `ping after DELETE: HTTP ${afterDel.status}: ${afterDel.text}`);
    const again = await mcpFetch(browser, { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId } });
    assert.equal(again.status, 404, `second DELETE: HTTP ${again.status}: ${again.text}`);
  });

  test('DELETE without a session header gets 400', async () => {
    const r = await mcpFetch(browser, { method: 'DELETE' });
    assert.equal(r.status, 400, `HTTP ${r.status}: ${r.text}`);
  });

  test('DELETE of an unknown session gets 404', async () => {
    const r = await mcpFetch(browser, { method: 'DELETE', headers: { 'Mcp-Session-Id': 'no-such-session-0123456789abcdef' } });
    assert.equal(r.status, 404, `HTTP ${r.status}: ${r.text}`);
  });

  test('lenient mode: tools/list without a session header works', async () => {
    const r = await mcpPost(browser, rpc('tools/list', {}));
    assert.equal(r.status, 200, `HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    assert.ok(Array.isArray(r.message?.result?.tools), `no tools array: ${r.text.slice(0, 500)}`);
    assert.ok(r.message.result.tools.length >= CORE_TOOLS.length);
  });

  test('GET opens an SSE stream that starts with ": connected"', async () => {
    const { sessionId } = await openSession(browser);
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; ac.abort(); }, 10_000);
    try {
      const res = await fetch(browser.mcpUrl, {
        method: 'GET',
        headers: {
          Authorization: `Bearer ${browser.token}`,
          Accept: 'text/event-stream',
          'Mcp-Session-Id': sessionId,
        },
        signal: ac.signal,
      });
      assert.equal(res.status, 200, `HTTP ${res.status}: ${res.status !== 200 ? await res.text() : ''}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (text.length < ': connected'.length) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      assert.ok(text.startsWith(': connected'), `stream starts with ${JSON.stringify(text.slice(0, 200))}`);
    } catch (err) {
      if (timedOut) assert.fail('the GET stream sent nothing within 10 s (expected ": connected" first)');
      throw err;
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
  });

  test('an unknown method is JSON-RPC error -32601', async () => {
    const { sessionId } = await openSession(browser);
    const req = rpc('no/such/method', {});
    const r = await mcpPost(browser, req, { sessionId });
    assert.equal(r.message?.id, req.id, `reply: HTTP ${r.status} ${r.text}`);
    assert.equal(r.message?.error?.code, -32601, `reply: ${r.text}`);
  });

  test('tools/list (official SDK client) has the 30 core tools with well-formed schemas', async () => {
    const mcp = await connectMcp(browser);
    try {
      assert.equal(mcp.client.getServerVersion()?.name, 'sovereign-browser');
      const tools = await mcp.listTools();
      const names = tools.map((t) => t.name);
      const missing = CORE_TOOLS.filter((n) => !names.includes(n));
      assert.deepEqual(missing, [], `missing tools; listed: ${names.join(', ')}`);
      assert.equal(new Set(names).size, names.length, `duplicate tool names: ${names.join(', ')}`);
      for (const tool of tools) {
        const s = tool.inputSchema;
        assert.equal(typeof tool.description, 'string', `${tool.name}: no description`);
        assert.ok(tool.description.trim().length > 0, `${tool.name}: empty description`);
        assert.equal(s?.type, 'object', `${tool.name}: inputSchema.type is ${s?.type}`);
        assert.ok(s.properties === undefined || (typeof s.properties === 'object' && !Array.isArray(s.properties)),
          `${tool.name}: properties is not an object`);
        for (const k of ['oneOf', 'anyOf', 'allOf']) {
          assert.ok(!(k in s), `${tool.name}: top-level ${k} in inputSchema`);
        }
        for (const r of s.required ?? []) {
          assert.ok(s.properties && r in s.properties, `${tool.name}: required "${r}" is not in properties`);
        }
      }
      // The parameter names clients rely on.
      const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
      assert.deepEqual(byName.open.required, ['url']);
      assert.ok(byName.login.properties.method && byName.login.properties.nsec, 'login: method/nsec');
      for (const t of ['click', 'get_text', 'get_html', 'hover', 'focus', 'fill', 'type', 'get_attr']) {
        assert.ok(byName[t].properties.ref && byName[t].properties.selector, `${t}: ref and selector properties`);
      }
      assert.ok(byName.wait_for.properties.timeout, 'wait_for: timeout property');
      assert.ok(byName.tab_switch.properties.index, 'tab_switch: index property');
    } finally {
      await mcp.close();
    }
  });
});
