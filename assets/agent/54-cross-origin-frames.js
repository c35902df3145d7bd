  // Cross-origin frames: frame refs, signed requests to a frame's agent, its answers.

  // ---------------------------------------------------------------------------------------
  // Cross-origin frames. The browser can run scripts in the main frame only, and a parent
  // cannot read a cross-origin child, so the parent's agent posts a request to the child's
  // window and the child's agent answers the browser directly, through a message handler
  // that exists only in this isolated world: no page ever sees an answer. Requests carry an
  // HMAC under a key only the browser and its agents hold, so a page cannot forge one, and
  // the agent's capture listener (installed before any page script) keeps them from pages.

  const FRAME_KEY = '__SOVEREIGN_FRAME_KEY__';
  const FRAME_REQUEST = '__sovereignFrameRequest';
  const FRAME_HANDLER = 'sovereignFrame';
  const FRAME_MARK = '\u0001frame ';
  const FRAME_REQUEST_MAX_AGE_MS = 60000;
  // Ops that need the frame on screen: it is scrolled into view before they are forwarded.
  const GEOMETRY_OPS = new Set(['actionable', 'focus', 'prepare_fill', 'prepare_type', 'scroll']);
  // Ops that may wait for long (a user script, an input waiting for its element): the
  // browser waits for their answer as long as for the call.
  const WAITING_OPS = new Set(['eval', 'actionable']);
  // f2e7 is element 7 of the frame numbered 2 here; f2f1e7 goes one frame deeper.
  const FRAME_REF = /^\[?(?:ref=)?@?f(\d{1,9})((?:f\d{1,9})*e\d{1,9})\]?$/;

  // Where this agent's document sits: the top, or a frame asked by its parent.
  const TOP_PLACE = { prefix: '', x: 0, y: 0, vw: 0, vh: 0, floor: 0 };
  let place = TOP_PLACE;

  function refText(n) {
    return place.prefix + 'e' + n;
  }

  function frameRefOf(ref) {
    if (typeof ref !== 'string') return null;
    const m = FRAME_REF.exec(ref.trim());
    return m ? { frame: Number(m[1]), rest: m[2] } : null;
  }

  function framesOf(table) {
    if (!table.frames) table.frames = { next: 1, byNumber: new Map(), byElement: new WeakMap() };
    return table.frames;
  }

  function frameNumberOf(table, frame) {
    const frames = framesOf(table);
    let n = frames.byElement.get(frame);
    if (n === undefined) {
      n = frames.next++;
      frames.byElement.set(frame, n);
      frames.byNumber.set(n, makeWeak(frame));
    }
    return n;
  }

  function frameByNumber(table, n) {
    const weak = framesOf(table).byNumber.get(n);
    const frame = weak && weak.deref();
    if (frame && frame.isConnected && frame.contentWindow) return frame;
    throw fail('STALE_REF', `frame f${n} is gone (the page changed); take a new snapshot`);
  }

  // Asks the agent in a cross-origin frame to run `op`; returns the nonce its answer to the
  // browser will carry.
  function askFrame(frame, table, op, args) {
    const n = frameNumberOf(table, frame);
    const origin = frameContentOrigin(frame);
    const body = JSON.stringify({
      op,
      args,
      prefix: place.prefix + 'f' + n,
      x: place.x + origin.x,
      y: place.y + origin.y,
      vw: place.vw || innerWidth,
      vh: place.vh || innerHeight,
      floor: Math.max(place.floor, Number(args.floor) || 0),
      time: Date.now(),
    });
    const nonce = randomHex(16);
    const request = { nonce, body, mac: hmacHex(FRAME_KEY, nonce + '\n' + body) };
    frame.contentWindow.postMessage({ [FRAME_REQUEST]: request }, '*');
    return nonce;
  }

  // A ref like f2e7: the op runs in frame 2, and the browser waits for its answer.
  function forwardToFrame(op, params, routed, table) {
    const frame = frameByNumber(table, routed.frame);
    if (GEOMETRY_OPS.has(op)) {
      const view = viewportSize(document);
      const rect = frame.getBoundingClientRect();
      if (!isFullyInView(rect, view)) scrollIntoViewInstant(frame);
    }
    const args = Object.assign({}, params, { ref: routed.rest, floor: Math.max(Number(params.next) || 0, table.next) });
    return { __forwarded: askFrame(frame, table, op, args), script: WAITING_OPS.has(op) };
  }

  // frame_switch: a session's tools act in a frame. A same-origin frame is searched in
  // place (refs stay the page's); a cross-origin frame's agent runs the op itself.
  function inFrame(op, params, table, handler) {
    const frame = resolveRef(table, params.frame);
    if (frame.localName !== 'iframe' && frame.localName !== 'frame') {
      throw fail('INVALID_PARAMS', `the frame_switch target is ${shortDescription(frame)}, not a frame`);
    }
    const args = Object.assign({}, params);
    delete args.frame;
    const inner = sameOriginDocument(frame);
    if (!inner) {
      if (!frame.contentWindow) throw fail('STALE_REF', 'the frame chosen with frame_switch has no page; call frame_main');
      if (GEOMETRY_OPS.has(op) && !isFullyInView(frame.getBoundingClientRect(), viewportSize(document))) {
        scrollIntoViewInstant(frame);
      }
      args.floor = Math.max(Number(params.next) || 0, table.next);
      // A user script may await for long: the browser waits for it as in the top document.
      return { __forwarded: askFrame(frame, table, op, args), script: WAITING_OPS.has(op) };
    }
    const outer = table.scope;
    table.scope = inner;
    try {
      return handler(args, table);
    } finally {
      table.scope = outer;
    }
  }

  // Where selectors, snapshots and searches look: the page, or the frame chosen.
  function scopeOf(table) {
    return table.scope || table.doc;
  }

  // The top-left corner of a frame's viewport in its parent's viewport.
  function frameContentOrigin(frame) {
    const r = frame.getBoundingClientRect();
    const style = getComputedStyle(frame);
    return {
      x: r.left + frame.clientLeft + (parseFloat(style.paddingLeft) || 0),
      y: r.top + frame.clientTop + (parseFloat(style.paddingTop) || 0),
    };
  }

  const seenNonces = new Set();

  function onFrameRequest(event) {
    const data = event.data;
    if (!data || typeof data !== 'object' || !Object.prototype.hasOwnProperty.call(data, FRAME_REQUEST)) return;
    event.stopImmediatePropagation();
    if (window.parent === window || event.source !== window.parent) return;
    const request = data[FRAME_REQUEST];
    if (!request || typeof request.nonce !== 'string' || typeof request.body !== 'string') return;
    if (typeof request.mac !== 'string' || seenNonces.has(request.nonce)) return;
    if (hmacHex(FRAME_KEY, request.nonce + '\n' + request.body) !== request.mac) return;
    let job;
    try {
      job = JSON.parse(request.body);
    } catch (_) {
      return;
    }
    if (Math.abs(Date.now() - Number(job.time)) > FRAME_REQUEST_MAX_AGE_MS) return;
    seenNonces.add(request.nonce);
    if (seenNonces.size > 1024) seenNonces.clear();
    const outer = place;
    place = {
      prefix: String(job.prefix),
      x: Number(job.x) || 0,
      y: Number(job.y) || 0,
      vw: Number(job.vw) || 0,
      vh: Number(job.vh) || 0,
      floor: Number(job.args && job.args.floor) || 0,
    };
    let reply;
    try {
      reply = run(job.op, job.args);
    } finally {
      place = outer;
    }
    const answer = (r) => sendToBrowser({ nonce: request.nonce, reply: Object.assign(r, { origin: location.origin }) });
    if (reply instanceof Promise) reply.then(answer);
    else answer(reply);
  }

  function sendToBrowser(message) {
    const handlers = window.webkit && window.webkit.messageHandlers;
    const handler = handlers && handlers[FRAME_HANDLER];
    if (handler) handler.postMessage(JSON.stringify(message));
  }

  if (window.parent !== window) window.addEventListener('message', onFrameRequest, true);

  // This document's identity: the library runs once per document, so a new
  // page (even at the same URL) has a new one, and a page kept in the back-forward
  // cache keeps its own. Snapshot diffs only compare snapshots of one document.
  let thisDocument = '';
  function documentId() {
    if (!thisDocument) thisDocument = randomHex(8);
    return thisDocument;
  }

  function randomHex(bytes) {
    const buf = new Uint8Array(bytes);
    crypto.getRandomValues(buf);
    return hex(buf);
  }
