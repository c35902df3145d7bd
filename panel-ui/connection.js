// The panel's WebSocket to /api/panel: tool calls with request ids, pushed
// events, and reconnection with backoff.
//
// It is the person's connection: the browser opens it only with the
// person's panel key, sent beside the panel's subprotocol (key.js).

import { panelProtocols } from './key.js';

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
 *   onStatus({ state: 'connecting'|'open'|'closed', retryInMs, everOpened, failures })
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

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    status('connecting');
    let opened = false;
    let ws;
    try {
      ws = new WebSocket(url(), panelProtocols());
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

  /** Drops the current socket (if any) and connects again now. */
  function reconnect() {
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
