  // Scrolling: the page, or the scrollable pane at the viewport's centre.

  // ---------------------------------------------------------------------------------------
  // Scrolling

  function scrollDelta(direction, amount) {
    switch (direction) {
      case 'up': return [0, -amount];
      case 'down': return [0, amount];
      case 'left': return [-amount, 0];
      case 'right': return [amount, 0];
      default:
        throw fail('INVALID_PARAMS', 'direction must be one of up, down, left, right');
    }
  }

  // Pages whose document does not scroll (an app shell with its own scrolling pane):
  // scroll the pane under the middle of the viewport instead.
  function scrollablePaneAtCentre(doc, dx, dy) {
    const view = viewportSize();
    for (let el = deepElementFromPoint(doc, view.width / 2, view.height / 2); el; el = el.parentElement) {
      const style = getComputedStyle(el);
      const overflow = dy ? style.overflowY : style.overflowX;
      const room = dy ? el.scrollHeight > el.clientHeight : el.scrollWidth > el.clientWidth;
      if (room && (overflow === 'auto' || overflow === 'scroll')) return el;
    }
    return null;
  }

  function opScroll(args, table) {
    const amount = args.amount === undefined || args.amount === null ? DEFAULT_SCROLL : Number(args.amount);
    if (!Number.isFinite(amount)) throw fail('INVALID_PARAMS', 'amount must be a number of CSS pixels');
    const [dx, dy] = scrollDelta(args.direction, amount);
    const win = scopeOf(table).defaultView;
    const before = [win.scrollX, win.scrollY];
    withInstantBehavior(
      (behavior) => win.scrollBy({ left: dx, top: dy, behavior }),
      () => win.scrollBy(dx, dy),
    );
    const result = { scrollX: Math.round(win.scrollX), scrollY: Math.round(win.scrollY) };
    if (win.scrollX === before[0] && win.scrollY === before[1] && amount !== 0) {
      const pane = scrollablePaneAtCentre(scopeOf(table), dx, dy);
      if (pane) {
        withInstantBehavior(
          (behavior) => pane.scrollBy({ left: dx, top: dy, behavior }),
          () => pane.scrollBy(dx, dy),
        );
        result.container = shortDescription(pane);
        result.containerScrollLeft = Math.round(pane.scrollLeft);
        result.containerScrollTop = Math.round(pane.scrollTop);
      }
    }
    return result;
  }
