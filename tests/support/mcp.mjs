// MCP helpers: a client on the official SDK, and raw wire-level requests.
import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const LATEST_PROTOCOL = '2025-11-25';
export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/** The 30 tools of the core catalogue. */
export const CORE_TOOLS = [
  'login_status', 'login', 'logout', 'switch_identity',
  'open', 'back', 'forward', 'reload', 'get_url', 'get_title',
  'snapshot', 'get_text', 'get_html', 'get_attr', 'eval',
  'click', 'fill', 'type', 'press', 'scroll', 'hover', 'focus', 'close',
  'tab_list', 'tab_new', 'tab_switch', 'tab_close',
  'wait', 'wait_for', 'screenshot',
];

/** The test identity. */
/** Tools of the whole catalogue: the plan's 100 and those added since. */
export const CATALOGUE_SIZE = 122;
/** Tools tools/list shows until an agent enables a family (tools_enable). */
export const LISTED_SIZE = 60;

export const TEST_NSEC = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
export const TEST_NPUB = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
export const TEST_PUBKEY = '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e';

// ---------------------------------------------------------------------------
// Official SDK client

/**
 * Connect the official MCP client to a running browser (declaring
 * `capabilities`, e.g. elicitation, when given).
 * Returns { client, transport, callTool(name, args), listTools(), close() }.
 * callTool returns the raw CallToolResult.
 */
export async function connectMcp(browser, { name = 'sovereign-tests', token = browser.token, timeout = 60_000, capabilities } = {}) {
  const client = new Client({ name, version: '0.0.0' }, capabilities ? { capabilities } : undefined);
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(browser.mcpUrl), { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    transport,
    callTool: (tool, args = {}, opts = {}) =>
      client.callTool({ name: tool, arguments: args }, undefined, { timeout, ...opts }),
    async listTools() {
      const tools = [];
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    },
    close: () => client.close(),
  };
}

const show = (v) => {
  const s = JSON.stringify(v);
  return s.length > 3000 ? s.slice(0, 3000) + '…' : s;
};

/** A JSON tool's object: asserts success, checks text block == structuredContent. */
export function jsonResult(result, what = 'tool') {
  assert.ok(!result.isError, `${what} failed: ${show(result)}`);
  assert.ok(result.structuredContent && typeof result.structuredContent === 'object',
    `${what}: expected structuredContent, got ${show(result)}`);
  const text = result.content?.find((c) => c.type === 'text')?.text;
  assert.ok(typeof text === 'string', `${what}: expected a text block with the JSON, got ${show(result)}`);
  assert.deepEqual(JSON.parse(text), result.structuredContent,
    `${what}: text block and structuredContent differ: ${show(result)}`);
  return result.structuredContent;
}

/** A text tool's text: asserts success and a single text block. */
export function textResult(result, what = 'tool') {
  assert.ok(!result.isError, `${what} failed: ${show(result)}`);
  assert.equal(result.content?.[0]?.type, 'text', `${what}: expected a text block, got ${show(result)}`);
  return result.content[0].text;
}

/** A failed tool: asserts isError and the code, returns the message. */
export function errorResult(result, code, what = 'tool') {
  assert.equal(result.isError, true, `${what}: expected ${code}, got success: ${show(result)}`);
  const text = result.content?.[0]?.text ?? '';
  assert.ok(text.startsWith(`${code}:`), `${what}: expected text starting "${code}:", got ${show(result)}`);
  assert.equal(result.structuredContent?.error?.code, code,
    `${what}: expected structuredContent.error.code ${code}, got ${show(result)}`);
  return result.structuredContent.error.message;
}

/** Call a tool and return its JSON object (throws with the result when it fails). */
export async function callJson(mcp, tool, args = {}) {
  return jsonResult(await mcp.callTool(tool, args), `${tool}(${show(args)})`);
}
export async function callText(mcp, tool, args = {}) {
  return textResult(await mcp.callTool(tool, args), `${tool}(${show(args)})`);
}
export async function callError(mcp, tool, args, code) {
  return errorResult(await mcp.callTool(tool, args), code, `${tool}(${show(args)})`);
}

// ---------------------------------------------------------------------------
// Raw wire-level requests

/** Parse an SSE body into events [{event, data, id, comments}]. */
export function parseSse(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const ev = { event: 'message', data: '', id: undefined, comments: [] };
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) ev.comments.push(line.slice(1).trim());
      else if (line.startsWith('event:')) ev.event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('id:')) ev.id = line.slice(3).trim();
    }
    ev.data = data.join('\n');
    events.push(ev);
  }
  return events;
}

/** The JSON-RPC messages in a reply body, SSE or JSON. */
export function rpcMessages(contentType, text) {
  if ((contentType ?? '').includes('text/event-stream')) {
    return parseSse(text)
      .filter((e) => e.event === 'message' && e.data.trim() !== '')
      .map((e) => JSON.parse(e.data));
  }
  if (!text) return [];
  const v = JSON.parse(text);
  return Array.isArray(v) ? v : [v];
}

/**
 * POST a JSON-RPC message (object or raw string) with fetch.
 * Returns { status, headers, contentType, text, messages, message, sessionId }.
 */
export async function mcpPost(browser, body, {
  token = browser.token,
  sessionId,
  accept = 'application/json, text/event-stream',
  contentType = 'application/json',
  protocolVersion,
  headers = {},
} = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (accept) h.Accept = accept;
  if (contentType) h['Content-Type'] = contentType;
  if (sessionId) h['Mcp-Session-Id'] = sessionId;
  if (protocolVersion) h['Mcp-Protocol-Version'] = protocolVersion;
  const res = await fetch(browser.mcpUrl, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const ct = res.headers.get('content-type') ?? '';
  let messages = [];
  let parseError;
  try { messages = rpcMessages(ct, text); } catch (e) { parseError = e; }
  return {
    status: res.status,
    headers: res.headers,
    contentType: ct,
    text,
    messages,
    message: messages[0],
    parseError,
    sessionId: res.headers.get('mcp-session-id') ?? undefined,
  };
}

/** A request with any method and headers via fetch; returns { status, headers, text }. */
export async function mcpFetch(browser, { method = 'POST', headers = {}, body, token = browser.token } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  const res = await fetch(browser.mcpUrl, { method, headers: h, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

let nextRpcId = 1;
export const rpc = (method, params) => ({ jsonrpc: '2.0', id: nextRpcId++, method, ...(params === undefined ? {} : { params }) });
export const notification = (method, params) => ({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });

export const initializeParams = (protocolVersion = LATEST_PROTOCOL) => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: 'sovereign-wire-tests', version: '0.0.0' },
});

/** initialize + notifications/initialized; returns { sessionId, result, reply }. */
export async function openSession(browser, protocolVersion = LATEST_PROTOCOL, opts = {}) {
  const reply = await mcpPost(browser, rpc('initialize', initializeParams(protocolVersion)), opts);
  assert.equal(reply.status, 200, `initialize: HTTP ${reply.status} ${reply.text}`);
  assert.ok(reply.sessionId, `initialize: no Mcp-Session-Id header (headers: ${show([...reply.headers])})`);
  const note = await mcpPost(browser, notification('notifications/initialized'), {
    ...opts, sessionId: reply.sessionId, protocolVersion: reply.message?.result?.protocolVersion,
  });
  assert.equal(note.status, 202, `notifications/initialized: HTTP ${note.status} ${note.text}`);
  return { sessionId: reply.sessionId, result: reply.message.result, reply };
}

/**
 * A raw HTTP request with node:http (fetch cannot set Host, and gives up
 * when a server answers before reading a large body).
 * Resolves { status, headers, text } as soon as the response has arrived.
 */
export function httpRequest(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    let answered = false;
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers,
    }, (res) => {
      answered = true;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
      res.on('error', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (err) => { if (!answered) reject(err); });
    // A server may answer (413) before reading the whole body and close: the
    // rest of our write then fails with EPIPE, which is expected here.
    req.on('socket', (socket) => socket.on('error', () => {}));
    if (body !== undefined) req.end(body); else req.end();
  });
}

// ---------------------------------------------------------------------------
// The stateless revision (2026-07-28): every request carries its own _meta
// and the headers that mirror it.

export const MODERN_PROTOCOL = '2026-07-28';

export const modernMeta = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'sovereign-modern-tests', version: '0.0.0' },
  ...extra,
});

/** The routing headers a conforming client sends for a request body. */
export function modernHeaders(body) {
  const h = { 'MCP-Protocol-Version': MODERN_PROTOCOL, 'Mcp-Method': body.method };
  const name = body.params?.name ?? body.params?.uri;
  if (['tools/call', 'prompts/get', 'resources/read'].includes(body.method) && typeof name === 'string') {
    h['Mcp-Name'] = name;
  }
  return h;
}

/**
 * POST a modern request: `params` gets a complete _meta unless it has one
 * (or `meta: null` leaves it out); `headers` override the routing headers
 * (a null value drops one).
 */
export async function modernPost(browser, method, params = {}, { meta, headers = {}, ...opts } = {}) {
  const withMeta = meta === null ? params : { ...params, _meta: meta ?? params._meta ?? modernMeta() };
  const body = rpc(method, withMeta);
  const h = { ...modernHeaders(body), ...headers };
  for (const [k, v] of Object.entries(h)) if (v === null) delete h[k];
  const reply = await mcpPost(browser, body, { ...opts, headers: h });
  return { ...reply, id: body.id };
}

/** A modern tools/call's result (asserts a result, not a JSON-RPC error). */
export async function modernCall(browser, tool, args = {}, opts = {}) {
  const reply = await modernPost(browser, 'tools/call', { name: tool, arguments: args }, opts);
  assert.equal(reply.status, 200, `${tool}: HTTP ${reply.status}: ${reply.text}`);
  const message = reply.messages.find((m) => m.id === reply.id);
  assert.ok(message?.result, `${tool}: no result in ${reply.text}`);
  assert.equal(message.result.resultType, 'complete', `${tool}: ${reply.text}`);
  return message.result;
}
