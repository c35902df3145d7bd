// One way to call the browser's tools over either transport, so that a
// scenario is written once and run over MCP (the official SDK client) and
// over the /agent WebSocket:
//
//   const d = await connectDriver(browser, 'mcp' | 'agent');
//   await d.call('open', { url })        // a JSON tool's object
//   await d.text('snapshot')             // a text tool's text
//   await d.image('screenshot')          // { mimeType, data } of an image tool
//   await d.error('get_url', {}, 'NOT_LOGGED_IN')  // asserts the code, gives the message
//   await d.outcome('tab_switch', { index: 5 })    // { ok, result } or { ok: false, code, message }
//   d.failed(await d.raw('click', args), 'DIALOG_OPEN')  // the same check as error(), on a reply at hand
//   await d.close();
//
// Each check is the transport's own: over MCP the text block must equal
// structuredContent (jsonResult), over /agent the reply must say ok.
import assert from 'node:assert/strict';
import { connectMcp, errorResult, jsonResult, textResult } from './mcp.mjs';
import { agentError, agentOk, connectAgent } from './agent.mjs';

export const TRANSPORTS = ['mcp', 'agent'];

const show = (v) => {
  const s = JSON.stringify(v);
  return s.length > 3000 ? s.slice(0, 3000) + '…' : s;
};
const name = (tool, args) => `${tool}(${show(args)})`;

/** A driver over MCP: `mcp` is the client of support/mcp.mjs. */
function mcpDriver(mcp) {
  const raw = (tool, args = {}) => mcp.callTool(tool, args);
  return {
    transport: 'mcp',
    mcp,
    raw,
    async callRaw(tool, args = {}, what = name(tool, args)) {
      const reply = await raw(tool, args);
      return { result: jsonResult(reply, what), raw: reply };
    },
    async call(tool, args = {}, what = name(tool, args)) {
      return jsonResult(await raw(tool, args), what);
    },
    async text(tool, args = {}, what = name(tool, args)) {
      return textResult(await raw(tool, args), what);
    },
    async image(tool, args = {}, what = name(tool, args)) {
      const reply = await raw(tool, args);
      assert.ok(!reply.isError, `${what} failed: ${show(reply)}`);
      const img = reply.content?.find((c) => c.type === 'image');
      assert.ok(img, `${what}: expected an image block, got ${show(reply)}`);
      return { mimeType: img.mimeType, data: img.data };
    },
    async error(tool, args = {}, code, what = name(tool, args)) {
      return errorResult(await raw(tool, args), code, what);
    },
    /** Asserts that a reply from raw() failed with `code` (the MCP way); gives the message. */
    failed: (reply, code, what = 'tool') => errorResult(reply, code, what),
    async outcome(tool, args = {}) {
      const reply = await raw(tool, args);
      if (!reply.isError) return { ok: true, result: reply.structuredContent ?? reply.content, raw: reply };
      const error = reply.structuredContent?.error ?? {};
      return { ok: false, code: error.code, message: error.message, raw: reply };
    },
    close: () => mcp.close().catch(() => {}),
  };
}

/** A driver over /agent: `agent` is the AgentClient of support/agent.mjs. */
function agentDriver(agent) {
  const raw = (tool, args = {}) => agent.call(tool, args);
  const ok = async (tool, args, what) => agentOk(await raw(tool, args), what);
  return {
    transport: 'agent',
    agent,
    raw,
    async callRaw(tool, args = {}, what = name(tool, args)) {
      const reply = await raw(tool, args);
      return { result: agentOk(reply, what), raw: reply };
    },
    async call(tool, args = {}, what = name(tool, args)) {
      const result = await ok(tool, args, what);
      assert.ok(result && typeof result === 'object' && !Array.isArray(result),
        `${what}: expected a JSON object, got ${show(result)}`);
      return result;
    },
    async text(tool, args = {}, what = name(tool, args)) {
      const result = await ok(tool, args, what);
      assert.equal(typeof result?.text, 'string', `${what}: expected {text}, got ${show(result)}`);
      return result.text;
    },
    async image(tool, args = {}, what = name(tool, args)) {
      const result = await ok(tool, args, what);
      assert.equal(typeof result?.data, 'string', `${what}: expected {mimeType, data}, got ${show(result).slice(0, 300)}`);
      return { mimeType: result.mimeType, data: result.data };
    },
    async error(tool, args = {}, code, what = name(tool, args)) {
      return agentError(await raw(tool, args), code, what);
    },
    /** Asserts that a reply from raw() failed with `code` (the /agent way); gives the message. */
    failed: (reply, code, what = 'agent call') => agentError(reply, code, what),
    async outcome(tool, args = {}) {
      const reply = await raw(tool, args);
      if (reply.ok) return { ok: true, result: reply.result, raw: reply };
      return { ok: false, code: reply.error?.code, message: reply.error?.message, raw: reply };
    },
    close: () => agent.close(),
  };
}

/** Connects to a running browser over `transport` ('mcp' or 'agent'). */
export async function connectDriver(browser, transport, opts = {}) {
  if (transport === 'mcp') {
    const mcp = await connectMcp(browser, opts);
    await mcp.listTools(); // as real clients do before calling tools
    return mcpDriver(mcp);
  }
  if (transport === 'agent') return agentDriver(await connectAgent(browser, opts));
  throw new Error(`unknown transport: ${transport}`);
}
