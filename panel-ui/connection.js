// The panel's WebSocket to /api/panel: tool calls with request ids, pushed
// events, and reconnection with backoff.
//
// It is the person's connection: the browser opens it only for a proof of
// the person's panel key, and the page gives that proof only once the
// server proved it holds the key too (key.js): the key is never sent, so
// whatever listens on the port after the browser is gone learns nothing.
// When the server is another run than the one first met (the browser
// restarted), the page stops until the person asks to connect again.

import { hello, panelKey } from './key.js';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;
const CALL_TIMEOUT_MS = 120_000;

export class CallError extends Error {
  /** field: the parameter at fault, when the server names one. */
  constructor(code, message, field) {
    super(message);
    this.code = code;
    this.field = field || null;
  }
}

/**
 * createConnection({ onEvent, onStatus }) -> { call, reconnect }
 *   onEvent(name, data)  for pushes ({"event": name, "data": data})
 *   onStatus({ state: 'connecting'|'open'|'closed'|'stopped', retryInMs, everOpened, failures, reason })
 *     stopped (no retry until reconnect()): reason 'no-key', 'unproven' (the
 *     server did not prove it holds this key), 'restarted' (another run of
 *     the browser), or 'insecure' (no WebCrypto here)
 *   call(tool, params) -> Promise<result>, rejects with CallError(code, message)
 */
export function createConnection({ onEvent, onStatus }) {
  let socket = null;
  let nextId = 1;
  const pending = new Map();
  let everOpened = false;
  let failures = 0; // closes in a row without a successful open
  let retryTimer = null;
  let retryAt = 0;
  let instance = null; // the run of the browser this page first met
  let attempts = 0; // an attempt superseded while it waited does nothing

  function status(state, extra = {}) {
    onStatus({ state, everOpened, failures, retryInMs: 0, ...extra });
  }

  function url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}/api/panel`;
  }

  function failAll(code, message) {
    for (const { reject, timer } of pending.values()) {
      clearTimeout(timer);
      reject(new CallError(code, message));
    }
    pending.clear();
  }

  async function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    const attempt = ++attempts;
    status('connecting');
    const key = panelKey();
    if (!key) {
      status('stopped', { reason: 'no-key' });
      return;
    }
    let said;
    try {
      said = await hello(key);
    } catch (error) {
      if (attempt !== attempts) return;
      if (error.insecure) status('stopped', { reason: 'insecure' });
      else scheduleRetry(); // nothing answered: the hello carried nothing of the key
      return;
    }
    if (attempt !== attempts) return;
    if (!said.proven) {
      status('stopped', { reason: 'unproven' });
      return;
    }
    if (instance !== null && said.instance !== instance) {
      status('stopped', { reason: 'restarted' });
      return;
    }
    instance = said.instance;
    let opened = false;
    let ws;
    try {
      ws = new WebSocket(url(), said.protocols);
    } catch (error) {
      scheduleRetry();
      return;
    }
    socket = ws;

    ws.addEventListener('open', () => {
      if (socket !== ws) return;
      opened = true;
      everOpened = true;
      failures = 0;
      status('open');
    });

    ws.addEventListener('message', (event) => {
      if (socket !== ws) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object' && 'event' in msg) {
        onEvent(msg.event, msg.data);
        return;
      }
      if (msg && msg.id !== undefined && pending.has(msg.id)) {
        const { resolve, reject, timer } = pending.get(msg.id);
        pending.delete(msg.id);
        clearTimeout(timer);
        if (msg.ok) resolve(msg.result);
        else {
          const error = msg.error || {};
          reject(new CallError(error.code || 'INTERNAL', error.message || 'the call failed', error.field));
        }
      }
    });

    ws.addEventListener('close', () => {
      if (socket !== ws) return;
      socket = null;
      if (!opened) failures += 1;
      failAll('DISCONNECTED', 'the connection to the browser was lost; try again when it is back');
      scheduleRetry();
    });
    // 'error' is always followed by 'close'; nothing to do here.
  }

  function scheduleRetry() {
    const exponent = Math.min(failures, 5);
    const delay = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** exponent);
    retryAt = Date.now() + delay;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, delay);
    status('closed', { retryInMs: delay, retryAt });
  }

  function call(tool, params = {}) {
    return new Promise((resolve, reject) => {
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        reject(new CallError('DISCONNECTED', 'not connected to the browser; wait for the connection to come back'));
        return;
      }
      const id = nextId++;
      const timer = setTimeout(() => {
        if (pending.delete(id)) reject(new CallError('TIMEOUT', `${tool} got no answer in ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ id, tool, params }));
    });
  }

  /** Drops the current socket (if any) and connects again now, to whichever run answers. */
  function reconnect() {
    instance = null;
    if (socket) {
      const old = socket;
      socket = null;
      old.close();
      failAll('DISCONNECTED', 'reconnecting');
    }
    connect();
  }

  connect();
  return { call, reconnect };
}
