  // Pointing: element boxes and the viewport's size.

  // ---------------------------------------------------------------------------------------
  // Pointing: where a trusted click or hover should land, and whether it would land there.

  function firstSizedRect(el) {
    for (const rect of el.getClientRects()) {
      if (rect.width > 0 && rect.height > 0) return rect;
    }
    return null;
  }

  // An inline wrapper (<a> around a block, display:contents) may have no box of its own
  // while its content has one: a click there still reaches the target.
  function sizedRectOf(el) {
    const own = firstSizedRect(el);
    if (own) return own;
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    return typeof range.getClientRects === 'function' ? firstSizedRect(range) : null;
  }

  function viewportSize(doc) {
    const d = doc || document;
    const win = d.defaultView || window;
    const root = d.documentElement;
    // clientWidth leaves out the scrollbar, where elementFromPoint finds nothing.
    const width = root && root.clientWidth ? Math.min(root.clientWidth, win.innerWidth) : win.innerWidth;
    const height = root && root.clientHeight ? Math.min(root.clientHeight, win.innerHeight) : win.innerHeight;
    return { width, height };
  }
