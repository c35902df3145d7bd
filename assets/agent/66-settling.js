  // Settling (opSettle): waits on the page's own events until the view is where an input
  // or a setting left it.

  // ---------------------------------------------------------------------------------------
  // `width` and `height`: until the viewport has that size (resize events). Otherwise
  // scrolling: until a scroll that began within `start_ms` has come to rest (no scroll
  // event, on the page or in a scrolling box, and no move, for SCROLL_QUIET_MS). Never longer than
  // `limit_ms`; then it answers where the view is.

  const SETTLE_LIMIT_MAX_MS = 10000;

  function opSettle(args, table) {
    const limit = Math.max(0, Math.min(Number(args.limit_ms) || 3000, SETTLE_LIMIT_MAX_MS));
    if (args.width != null) return settleViewport(Number(args.width), Number(args.height), limit);
    return settleScroll(Math.max(0, Math.min(Number(args.start_ms) || 0, limit)), limit, table);
  }

  // A scrolling box that moved, as the wheel's result tells it: its ref and position.
  function paneView(table, el) {
    return { ref: refText(refOf(table, el)), scrollTop: Math.round(el.scrollTop), scrollLeft: Math.round(el.scrollLeft) };
  }

  function viewNow() {
    return { width: innerWidth, height: innerHeight, scrollX: Math.round(scrollX), scrollY: Math.round(scrollY) };
  }

  // Calls `listen(onEvent)` to subscribe; resolves with the view when `done()` says so
  // after an event (or at once), or when the limit passes.
  function settleOn(limit, listen, check) {
    return new Promise((resolve) => {
      let timer = 0;
      let unlisten = () => {};
      const finish = () => {
        clearTimeout(timer);
        unlisten();
        resolve(viewNow());
      };
      unlisten = listen(() => {
        if (check()) finish();
      });
      timer = setTimeout(finish, limit);
      if (check()) finish();
    });
  }

  function settleViewport(width, height, limit) {
    return settleOn(
      limit,
      (onEvent) => {
        addEventListener('resize', onEvent);
        return () => removeEventListener('resize', onEvent);
      },
      () => innerWidth === width && innerHeight === height,
    );
  }

  // A scroll is at rest once nothing moved (no scroll event, the same position) for this
  // long: the tail of a smooth scroll moves by fractions of a pixel between frames.
  const SCROLL_QUIET_MS = 60;

  function settleScroll(startMs, limit, table) {
    return new Promise((resolve) => {
      let lastMove = -1;
      let finished = false;
      let position = [scrollX, scrollY];
      let pane = null;
      const started = performance.now();
      const onScroll = (event) => {
        lastMove = performance.now();
        if (event.target && event.target.nodeType === ELEMENT_NODE) pane = event.target;
      };
      const finish = () => {
        if (finished) return;
        finished = true;
        document.removeEventListener('scroll', onScroll, true);
        const view = viewNow();
        if (pane && table) view.pane = paneView(table, pane);
        resolve(view);
      };
      document.addEventListener('scroll', onScroll, true);
      const frame = () => {
        if (finished) return;
        const now = performance.now();
        if (position[0] !== scrollX || position[1] !== scrollY) {
          position = [scrollX, scrollY];
          lastMove = now;
        }
        if (now - started >= limit) return finish();
        // No scroll began: nothing moves (the page was at its end, or could not scroll).
        if (lastMove < 0 && now - started >= startMs) return finish();
        if (lastMove >= 0 && now - lastMove >= SCROLL_QUIET_MS) return finish();
        nextFrame().then(frame);
      };
      nextFrame().then(frame);
    });
  }
