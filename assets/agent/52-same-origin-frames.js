  // Same-origin frames: their documents, frame chains and points in the top viewport.

  // ---------------------------------------------------------------------------------------
  // Same-origin frames: their elements are listed inline, get refs of the top document's
  // table, and are pointed at through their frame's position.

  function sameOriginDocument(frame) {
    try {
      const doc = frame.contentDocument;
      return doc && doc.documentElement ? doc : null;
    } catch (_) {
      return null; // cross-origin: not reachable from here
    }
  }

  // The frame elements from `doc` up to (not including) the top document `top`, innermost first.
  function frameChain(doc, top) {
    const chain = [];
    for (let d = doc; d && d !== top; ) {
      const frame = d.defaultView && d.defaultView.frameElement;
      if (!frame) return null;
      chain.push(frame);
      d = frame.ownerDocument;
    }
    return chain;
  }

  // Where a point of a frame's viewport is in the top viewport.
  function toTopPoint(point, chain) {
    let { x, y } = point;
    for (const frame of chain) {
      const r = frame.getBoundingClientRect();
      x += r.left + frame.clientLeft;
      y += r.top + frame.clientTop;
    }
    return { x: Math.round(x * 2) / 2, y: Math.round(y * 2) / 2 };
  }
