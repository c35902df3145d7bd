// The server's defences: Origin, Host, token, content type, body size,
// malformed input, the login gate, and the same for /agent.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import {
  TEST_NSEC, connectMcp, callJson, errorResult, httpRequest, initializeParams, mcpPost, modernMeta,
  modernPost, rpc,
} from './support/mcp.mjs';
import { agentOk, connectAgent, connectPanel, tryAgentHandshake } from './support/agent.mjs';

describe('security', { timeout: 240_000 }, () => {
  let browser;
  let mcp;
  const test = (name, fn, opts = {}) => it(name, { timeout: 30_000, ...opts }, withBrowserLog(() => browser, fn));
  const initialize = () => rpc('initialize', initializeParams());

  before(async () => {
    browser = await startBrowser();
    mcp = await connectMcp(browser);
  }, { timeout: 90_000 });
  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
  });

  test('the server\'s own Origin is accepted (control for the 403 checks)', async () => {
    for (const origin of [`http://127.0.0.1:${browser.port}`, `http://localhost:${browser.port}`]) {
      const r = await mcpPost(browser, initialize(), { headers: { Origin: origin } });
      assert.equal(r.status, 200, `Origin ${origin}: HTTP ${r.status}: ${r.text}`);
    }
  });

  test('a foreign Origin gets 403', async () => {
    const r = await mcpPost(browser, initialize(), { headers: { Origin: 'http://evil.example' } });
    assert.equal(r.status, 403, `HTTP ${r.status}: ${r.text}`);
  });

  test('a loopback Origin on another port gets 403', async () => {
    const other = browser.port === 1 ? 2 : browser.port - 1;
    const r = await mcpPost(browser, initialize(), { headers: { Origin: `http://127.0.0.1:${other}` } });
    assert.equal(r.status, 403, `HTTP ${r.status}: ${r.text}`);
  });

  test('Origin "null" gets 403', async () => {
    const r = await mcpPost(browser, initialize(), { headers: { Origin: 'null' } });
    assert.equal(r.status, 403, `HTTP ${r.status}: ${r.text}`);
  });

  const postWithHost = (host) => {
    const body = JSON.stringify(initialize());
    return httpRequest(browser.mcpUrl, {
      method: 'POST',
      headers: {
        Host: host,
        Authorization: `Bearer ${browser.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Content-Length': Buffer.byteLength(body),
      },
      body,
    });
  };

  test('a loopback Host is accepted (control for the DNS-rebinding check)', async () => {
    for (const host of [`localhost:${browser.port}`, `127.0.0.1:${browser.port}`]) {
      const r = await postWithHost(host);
      assert.equal(r.status, 200, `Host ${host}: HTTP ${r.status}: ${r.text}`);
    }
  });

  test('a non-loopback Host (DNS rebinding) gets 403', async () => {
    const r = await postWithHost(`evil.example:${browser.port}`);
    assert.equal(r.status, 403, `HTTP ${r.status}: ${r.text}`);
  });

  test('no token gets 401', async () => {
    const r = await mcpPost(browser, initialize(), { token: null });
    assert.equal(r.status, 401, `HTTP ${r.status}: ${r.text}`);
  });

  test('a wrong token gets 401', async () => {
    const wrong = browser.token.slice(0, -1) + (browser.token.endsWith('a') ? 'b' : 'a');
    const r = await mcpPost(browser, initialize(), { token: wrong });
    assert.equal(r.status, 401, `HTTP ${r.status}: ${r.text}`);
  });

  test('a stateless (2026-07-28) request passes the same gates; its client record is no session', async () => {
    const discover = (opts) => modernPost(browser, 'server/discover', {}, opts);
    assert.equal((await discover({ token: null })).status, 401, 'no token');
    assert.equal((await discover({ headers: { Origin: 'http://evil.example' } })).status, 403, 'a foreign Origin');
    const wrong = browser.token.slice(0, -1) + (browser.token.endsWith('a') ? 'b' : 'a');
    assert.equal((await discover({ token: wrong })).status, 401, 'a wrong token');
    const meta = modernMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'security-stateless', version: '1' } });
    const call = await modernPost(browser, 'tools/call', { name: 'login_status', arguments: {} }, { meta });
    assert.equal(call.status, 200, call.text);
    const panel = await connectPanel(browser);
    let record;
    try {
      for (;;) {
        const push = await panel.nextUnmatched({ timeout: 10_000 });
        record = push.event === 'state' && push.data.sessions.find((s) => s.client?.name === 'security-stateless');
        if (record) break;
      }
    } finally {
      await panel.close();
    }
    const named = await mcpPost(browser, rpc('tools/list', {}), { sessionId: record.id });
    assert.equal(named.status, 404, `a stateless client's record opened a session: ${named.text}`);
  });

  test('a text/plain body (a page\'s no-preflight form post) gets 415', async () => {
    const r = await mcpPost(browser, initialize(), { contentType: 'text/plain' });
    assert.equal(r.status, 415, `HTTP ${r.status}: ${r.text}`);
  });

  test('a 5 MiB body gets 413', async () => {
    const pad = 'x'.repeat(5 * 1024 * 1024);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad } });
    const r = await httpRequest(browser.mcpUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${browser.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Content-Length': Buffer.byteLength(body),
      },
      body,
    });
    assert.equal(r.status, 413, `HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  });

  test('malformed JSON is JSON-RPC error -32700', async () => {
    const r = await mcpPost(browser, '{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(r.status, 400, `HTTP ${r.status}: ${r.text}`);
    assert.ok(!r.parseError, `reply is not JSON-RPC: ${r.text}`);
    assert.equal(r.message?.error?.code, -32700, `reply: ${r.text}`);
  });

  test('an unknown tool is a JSON-RPC error naming it', async () => {
    const req = rpc('tools/call', { name: 'no_such_tool', arguments: {} });
    const r = await mcpPost(browser, req);
    assert.equal(r.message?.id, req.id, `reply: HTTP ${r.status} ${r.text}`);
    assert.ok(r.message?.error, `expected a JSON-RPC error, got ${r.text}`);
    assert.equal(r.message.error.code, -32602, `reply: ${r.text}`);
    assert.match(r.message.error.message, /unknown tool: no_such_tool/);
  });

  test('a browser tool before login answers NOT_LOGGED_IN', async () => {
    await callJson(mcp, 'logout');
    const status = await callJson(mcp, 'login_status');
    assert.equal(status.logged_in, false);
    for (const [tool, args] of [['get_url', {}], ['open', { url: 'about:blank' }], ['snapshot', {}], ['eval', { script: '1' }]]) {
      errorResult(await mcp.callTool(tool, args), 'NOT_LOGGED_IN', tool);
    }
  });

  test('missing required params (open without url) answer INVALID_PARAMS', async () => {
    const login = await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    assert.equal(login.logged_in, true);
    errorResult(await mcp.callTool('open', {}), 'INVALID_PARAMS', 'open {}');
    errorResult(await mcp.callTool('tab_switch', {}), 'INVALID_PARAMS', 'tab_switch {}');
    errorResult(await mcp.callTool('click', {}), 'INVALID_PARAMS', 'click without ref or selector');
    errorResult(await mcp.callTool('open', { url: 42 }), 'INVALID_PARAMS', 'open {url: 42}');
  });

  test('login with a bad nsec is INVALID_PARAMS and logs nobody in', async () => {
    await callJson(mcp, 'logout');
    const r = await mcp.callTool('login', { method: 'local', nsec: 'nsec1notavalidkey' });
    errorResult(r, 'INVALID_PARAMS', 'login with a bad nsec');
    assert.equal((await callJson(mcp, 'login_status')).logged_in, false);
  });

  const bearer = (token) => ({ Authorization: `Bearer ${token}` });

  test('/agent accepts a good token in the header (control for the refusals)', async () => {
    const r = await tryAgentHandshake(browser.agentUrl, bearer(browser.token));
    assert.deepEqual(r, { opened: true });
  });

  test('/agent without a token is refused', async () => {
    const r = await tryAgentHandshake(browser.agentUrl);
    assert.equal(r.opened, false, 'the WebSocket opened without a token');
    if (r.status !== undefined) assert.equal(r.status, 401);
  });

  test('/agent with a wrong token is refused', async () => {
    const r = await tryAgentHandshake(browser.agentUrl, bearer(`wrong-${browser.token}`));
    assert.equal(r.opened, false, 'the WebSocket opened with a wrong token');
    if (r.status !== undefined) assert.equal(r.status, 401);
  });

  // Regression: the token was taken from the URL too, where it ends up in
  // logs, history and other users' process lists.
  test('/agent and /mcp refuse the right token in the URL', async () => {
    const r = await tryAgentHandshake(`${browser.agentUrl}?token=${browser.token}`);
    assert.equal(r.opened, false, 'the WebSocket opened with ?token=');
    assert.equal(r.status, 401);
    const posted = await fetch(`${browser.mcpUrl}?token=${browser.token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize()),
    });
    assert.equal(posted.status, 401);
  });

  // Regression: agents could resume themselves, end other sessions, forget
  // identities, look at the window and answer window.nostr prompts.
  test('the person\'s own actions are refused to agents over MCP and /agent', async () => {
    const personal = {
      session_end: { id: 'x'.repeat(32) },
      agents_pause: { paused: false },
      window_layout: {},
      window_screenshot: {},
      identity_list: {},
      identity_forget: { npub: 'npub1x' },
      login_form: {},
      nostr_permissions: {},
      nostr_prompt_answer: { id: 1, allow: true, remember: true },
      nostr_permission_revoke: { origin: 'http://127.0.0.1' },
      nostr_assistant_answers: { allowed: true },
      network_watch: { id: 1 },
      ask_answer: { id: 1, answer: 'done' },
      context_logout: { context: 'default' },
    };
    const agent = await connectAgent(browser);
    try {
      for (const [tool, args] of Object.entries(personal)) {
        const r = await mcp.callTool(tool, args);
        assert.match(errorResult(r, 'UNKNOWN_TOOL', `${tool} over MCP`), /person's own action/);
        const reply = await agent.call(tool, args);
        assert.equal(reply.ok, false, `${tool} over /agent`);
        assert.equal(reply.error.code, 'UNKNOWN_TOOL', `${tool} over /agent: ${JSON.stringify(reply)}`);
      }
      const listed = (await mcp.listTools()).map((t) => t.name);
      for (const tool of Object.keys(personal)) assert.ok(!listed.includes(tool), `${tool} is not listed`);
    } finally {
      await agent.close();
    }
  });

  // Regression: a session id was looked up whatever transport made it, so
  // an MCP client holding the panel's session id spoke as the person.
  test('the panel\'s session id opens nothing on /mcp', async () => {
    const panel = await connectPanel(browser);
    try {
      let state;
      while (!(state = await panel.nextUnmatched()).event || state.event !== 'state') { /* the call log comes first */ }
      const panelId = state.data.you;
      assert.match(panelId, /^[0-9a-f]{32}$/);
      const asPanel = await mcpPost(browser, rpc('tools/call', { name: 'agents_pause', arguments: { paused: true } }), { sessionId: panelId });
      assert.equal(asPanel.status, 404, `${asPanel.status} ${asPanel.text}`);
      const ended = await fetch(browser.mcpUrl, { method: 'DELETE', headers: { Authorization: `Bearer ${browser.token}`, 'Mcp-Session-Id': panelId } });
      assert.equal(ended.status, 404);
      assert.equal(typeof agentOk(await panel.call('login_status'), 'the panel still works').logged_in, 'boolean');
      const probe = await mcp.callTool('get_url', {});
      assert.ok(!(probe.content?.[0]?.text ?? '').startsWith('PAUSED'), `nothing was paused: ${JSON.stringify(probe)}`);
    } finally {
      await panel.close();
    }
  });

  test('/agent with a foreign Origin is refused', async () => {
    const r = await tryAgentHandshake(browser.agentUrl, { ...bearer(browser.token), Origin: 'http://evil.example' });
    assert.equal(r.opened, false, 'the WebSocket opened for a foreign Origin');
    if (r.status !== undefined) assert.equal(r.status, 403);
  });

  test('JSON-RPC oddities: batches, deep nesting, wrong types, no method; the server keeps serving', async () => {
    const expect = async (body, code, what) => {
      const r = await mcpPost(browser, body);
      assert.equal(r.status, 400, `${what}: HTTP ${r.status} ${r.text}`);
      assert.equal(r.message?.error?.code, code, `${what}: ${r.text}`);
    };
    await expect([rpc('ping'), rpc('ping')], -32600, 'a batch array');
    await expect('{"jsonrpc":"2.0","id":1,"method":"ping","params":' + '['.repeat(5000) + ']'.repeat(5000) + '}', -32700, 'deep nesting');
    await expect({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, -32600, 'an object id');
    await expect({ jsonrpc: '2.0', id: 4, method: 5 }, -32600, 'a number as method');
    await expect({ jsonrpc: '2.0', id: 5 }, -32600, 'a request without method');
    await expect({ jsonrpc: '1.0', id: 6, method: 'ping' }, -32600, 'jsonrpc 1.0');
    await expect(null, -32600, 'null');
    const answer = await mcpPost(browser, { jsonrpc: '2.0', id: 7, result: {} });
    assert.equal(answer.status, 202, 'a client\'s response to the server is accepted');
    const init = await mcpPost(browser, initialize());
    const again = await mcpPost(browser, { jsonrpc: '2.0', id: 8, method: 'ping' }, { sessionId: init.sessionId });
    assert.deepEqual(again.message, { jsonrpc: '2.0', id: 8, result: {} }, 'still serving');
  });

  test('/agent answers every malformed message and keeps the connection', async () => {
    const agent = await connectAgent(browser);
    try {
      const bad = ['not json', '[1,2]', '{"id":1}', '{"id":2,"tool":5}', '{"id":3,"tool":"nope"}',
        '['.repeat(3000) + ']'.repeat(3000), '{"id":4,"tool":"get_url","params":[1]}'];
      for (const text of bad) agent.sendRaw(text);
      const codes = [];
      for (let i = 0; i < bad.length; i++) codes.push((await agent.nextUnmatched()).error?.code);
      assert.equal(codes.length, bad.length);
      assert.ok(codes.every((c) => ['INVALID_PARAMS', 'UNKNOWN_TOOL', 'NOT_LOGGED_IN'].includes(c)), codes.join(','));
      assert.equal((await agent.call('login_status')).ok, true, 'the connection still works');
    } finally {
      await agent.close();
    }
  });

  test('duplicate ids: each request is answered, /agent and MCP alike', async () => {
    const agent = await connectAgent(browser);
    try {
      agent.sendRaw(JSON.stringify({ id: 'same', tool: 'login_status' }));
      agent.sendRaw(JSON.stringify({ id: 'same', tool: 'no_such_tool' }));
      const replies = [await agent.nextUnmatched(), await agent.nextUnmatched()];
      assert.deepEqual(replies.map((r) => r.id), ['same', 'same']);
      assert.deepEqual(replies.map((r) => r.ok).sort(), [false, true], JSON.stringify(replies));
    } finally {
      await agent.close();
    }
    const init = await mcpPost(browser, initialize());
    const both = await Promise.all([
      mcpPost(browser, { jsonrpc: '2.0', id: 42, method: 'ping' }, { sessionId: init.sessionId }),
      mcpPost(browser, { jsonrpc: '2.0', id: 42, method: 'no/such' }, { sessionId: init.sessionId }),
    ]);
    assert.deepEqual(both[0].message, { jsonrpc: '2.0', id: 42, result: {} });
    assert.equal(both[1].message.id, 42);
    assert.equal(both[1].message.error.code, -32601);
  });
});
