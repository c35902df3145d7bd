// A client for the /agent WebSocket: {"id","tool","params"} -> {"id","ok","result"|"error"}.
import assert from 'node:assert/strict';
import WebSocket from 'ws';

const show = (v) => {
  const s = JSON.stringify(v);
  return s.length > 3000 ? s.slice(0, 3000) + '…' : s;
};

export class AgentClient {
  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map(); // id -> { resolve, reject, timer }
    this.unmatched = []; // replies whose id no call waits for (e.g. id null)
    this.unmatchedWaiters = [];
    ws.on('message', (data) => this.#onMessage(data.toString('utf8')));
    ws.on('close', () => {
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new Error('agent connection closed'));
      }
      this.pending.clear();
    });
  }

  #onMessage(text) {
    let msg;
    try { msg = JSON.parse(text); } catch { msg = { unparsable: text }; }
    const waiter = msg && this.pending.get(msg.id);
    if (waiter) {
      this.pending.delete(msg.id);
      clearTimeout(waiter.timer);
      waiter.resolve(msg);
      return;
    }
    const w = this.unmatchedWaiters.shift();
    if (w) { clearTimeout(w.timer); w.resolve(msg); } else this.unmatched.push(msg);
  }

  /** Send one request; resolves with the whole reply {id, ok, result|error}. */
  call(tool, params = {}, { timeout = 60_000, id = this.nextId++ } = {}) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no reply to ${tool} (id ${id}) within ${timeout} ms`));
      }, timeout);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ id, tool, params }));
    });
  }

  /** Send raw text (for malformed messages). */
  sendRaw(text) { this.ws.send(text); }

  /** The next reply that no call() was waiting for. */
  nextUnmatched({ timeout = 10_000 } = {}) {
    if (this.unmatched.length) return Promise.resolve(this.unmatched.shift());
    return new Promise((resolve, reject) => {
      const w = { resolve, timer: setTimeout(() => {
        this.unmatchedWaiters.splice(this.unmatchedWaiters.indexOf(w), 1);
        reject(new Error(`no unmatched reply within ${timeout} ms`));
      }, timeout) };
      this.unmatchedWaiters.push(w);
    });
  }

  close() {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', resolve);
      this.ws.close();
      setTimeout(() => { this.ws.terminate(); resolve(); }, 2000).unref();
    });
  }
}

/** Connect to /agent with the token in the Authorization header (via 'query' puts it in the URL, which is refused). */
export function connectAgent(browser, { token = browser.token, via = 'header', headers = {}, timeout = 10_000 } = {}) {
  let url = browser.agentUrl;
  const h = { ...headers };
  if (token && via === 'query') url += `?token=${encodeURIComponent(token)}`;
  if (token && via === 'header') h.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: h, handshakeTimeout: timeout });
    ws.once('open', () => resolve(new AgentClient(ws)));
    ws.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`/agent refused: HTTP ${res.statusCode}`), { status: res.statusCode }));
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

/**
 * Try to open /agent; resolves { opened: true } or { opened: false, status?, error? }.
 * For checks that a connection is refused.
 */
export function tryAgentHandshake(url, headers = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: 10_000 });
    ws.once('open', () => { ws.terminate(); resolve({ opened: true }); });
    ws.once('unexpected-response', (_req, res) => {
      resolve({ opened: false, status: res.statusCode });
      ws.terminate();
    });
    ws.once('error', (err) => resolve({ opened: false, error: err.message }));
  });
}

/** The result of a successful reply. */
export function agentOk(reply, what = 'agent call') {
  assert.equal(reply.ok, true, `${what} failed: ${show(reply)}`);
  assert.ok('result' in reply, `${what}: reply has no result: ${show(reply)}`);
  return reply.result;
}

/** The error of a failed reply; asserts the code. */
export function agentError(reply, code, what = 'agent call') {
  assert.equal(reply.ok, false, `${what}: expected ${code}, got success: ${show(reply)}`);
  assert.equal(reply.error?.code, code, `${what}: expected ${code}, got ${show(reply)}`);
  assert.equal(typeof reply.error.message, 'string', `${what}: error without message: ${show(reply)}`);
  return reply.error.message;
}

/** Call and return the result (asserting ok). */
export async function agentCall(agent, tool, params = {}) {
  return agentOk(await agent.call(tool, params), `${tool}(${show(params)})`);
}

/**
 * Connect to the control panel's own WebSocket (/api/panel), as the panel
 * page does: the same calls as /agent, plus live `state` pushes (kept as
 * unmatched messages).
 */
export function connectPanel(browser, { timeout = 10_000 } = {}) {
  const url = `${browser.base.replace(/^http/, 'ws')}/api/panel`;
  return new Promise((resolve, reject) => {
    // The person's key, never the agents' token: the panel speaks for the person.
    const headers = { Authorization: `Bearer ${browser.panelKey}` };
    const ws = new WebSocket(url, { handshakeTimeout: timeout, headers });
    ws.once('open', () => resolve(new AgentClient(ws)));
    ws.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`/api/panel refused: HTTP ${res.statusCode}`), { status: res.statusCode }));
      ws.terminate();
    });
    ws.once('error', reject);
  });
}
