  // Pointing and focusing: where a click lands and what it reaches (for opActionable), opFocus.

  function isFullyInView(rect, view) {
    return rect.top >= 0 && rect.left >= 0 && rect.bottom <= view.height && rect.right <= view.width;
  }

  function scrollIntoViewInstant(el) {
    withInstantBehavior(
      (behavior) => el.scrollIntoView({ block: 'center', inline: 'center', behavior }),
      () => el.scrollIntoView({ block: 'center', inline: 'center' }),
    );
  }

  // A checkbox or radio styled away (zero size, opacity 0) is clicked through its label.
  function visibleLabelFor(el) {
    if (el.localName !== 'input') return null;
    for (const label of labelsOf(el, newContext(null))) {
      if (isRendered(label) && sizedRectOf(label)) return label;
    }
    return null;
  }

  function deepElementFromPoint(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function shortDescription(el) {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/) : [];
    for (const c of classes.slice(0, 2)) if (c) s += '.' + c;
    const text = clamp(contentText(el, newContext(null), null, false), 40);
    return text ? `${s} ("${quote(text)}")` : s;
  }

  // Whether a click at the hit element reaches the target.
  function hitReaches(target, clicked, hit) {
    if (composedContains(clicked, hit)) return true;
    if (target !== clicked) return false;
    for (const label of labelsOf(target, newContext(null))) {
      if (composedContains(label, hit)) return true;
    }
    // The target lets clicks through to an ancestor, which is what the page intends.
    return composedContains(hit, target) && getComputedStyle(target).pointerEvents === 'none';
  }

  // The part of `rect` (in its own document's viewport) that its viewport and every
  // enclosing frame's viewport show, in the top viewport, with the offset that takes a
  // point of its own viewport there (`chain`: its frames, innermost first).
  function shownPart(rect, doc, chain) {
    const own = viewportSize(doc);
    let left = Math.max(rect.left, 0);
    let top = Math.max(rect.top, 0);
    let right = Math.min(rect.right, own.width);
    let bottom = Math.min(rect.bottom, own.height);
    let dx = 0;
    let dy = 0;
    for (const frame of chain) {
      const origin = frameContentOrigin(frame);
      const view = viewportSize(frame.ownerDocument);
      dx += origin.x;
      dy += origin.y;
      left = Math.max(left + origin.x, 0);
      top = Math.max(top + origin.y, 0);
      right = Math.min(right + origin.x, view.width);
      bottom = Math.min(bottom + origin.y, view.height);
    }
    if (right <= left || bottom <= top) return null;
    return { left, top, right, bottom, dx, dy };
  }

  // The part of `rect` its ancestors' overflow leaves to be seen: a file input made large
  // and laid over a button inside a box that hides the rest. A clip this cannot tell
  // (a positioned element that escapes it) leaves the whole box: the hit check decides.
  function unclippedPart(el, rect) {
    let { left, top, right, bottom } = rect;
    for (let node = el.parentElement; node && node !== el.ownerDocument.documentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const box = node.getBoundingClientRect();
      if (style.overflowX !== 'visible') [left, right] = [Math.max(left, box.left), Math.min(right, box.right)];
      if (style.overflowY !== 'visible') [top, bottom] = [Math.max(top, box.top), Math.min(bottom, box.bottom)];
    }
    if (right <= left || bottom <= top) return rect;
    return { left, top, right, bottom, width: right - left, height: bottom - top };
  }

  // Whether all of `rect` is shown, through every enclosing frame.
  function isFullyShown(rect, doc, chain) {
    const shown = shownPart(rect, doc, chain);
    return !!shown && shown.left - shown.dx <= rect.left && shown.top - shown.dy <= rect.top &&
      shown.right - shown.dx >= rect.right && shown.bottom - shown.dy >= rect.bottom;
  }

  // After the element was scrolled into view in its own document, brings it into view in
  // each enclosing document in turn: the frame into view, then (a frame taller than its
  // parent's view) the parent's page so that the element is in the middle.
  function revealInFrames(el, chain) {
    let dx = 0;
    let dy = 0;
    for (const frame of chain) {
      const outer = frame.ownerDocument;
      const view = viewportSize(outer);
      const inOuter = () => {
        const r = sizedRectOf(el);
        const origin = frameContentOrigin(frame);
        return r && { left: r.left + dx + origin.x, top: r.top + dy + origin.y, right: r.right + dx + origin.x, bottom: r.bottom + dy + origin.y };
      };
      let r = inOuter();
      if (r && !isFullyInView(r, view)) {
        scrollIntoViewInstant(frame);
        r = inOuter();
      }
      if (r && !isFullyInView(r, view)) {
        const win = outer.defaultView;
        const by = (lo, hi, size) => (hi - lo > size ? lo : (lo + hi) / 2 - size / 2);
        const left = by(r.left, r.right, view.width);
        const top = by(r.top, r.bottom, view.height);
        withInstantBehavior(
          (behavior) => win.scrollBy({ left, top, behavior }),
          () => win.scrollBy(left, top),
        );
      }
      const origin = frameContentOrigin(frame);
      dx += origin.x;
      dy += origin.y;
    }
  }

  // Centre of the element's shown part, scrolling it into view first when needed (in its
  // document and every enclosing one): the point in its own viewport, and `top`, the
  // same point in the top viewport.
  function locate(clicked, doc, chain, alreadyScrolled) {
    let rect = sizedRectOf(clicked);
    if (rect && !alreadyScrolled && !isFullyShown(rect, doc, chain)) {
      scrollIntoViewInstant(clicked);
      revealInFrames(clicked, chain);
      rect = sizedRectOf(clicked);
    }
    const shown = rect && shownPart(unclippedPart(clicked, rect), doc, chain);
    if (!shown) return null;
    const half = (v) => Math.round(v * 2) / 2;
    const top = { x: half((shown.left + shown.right) / 2), y: half((shown.top + shown.bottom) / 2) };
    return { x: top.x - shown.dx, y: top.y - shown.dy, top };
  }

  // Starts an HTML drag: draggable="true" on it or an ancestor, or a link or image.
  function isDraggable(el) {
    for (let node = el; node && node.nodeType === ELEMENT_NODE; node = node.parentElement) {
      if (node.draggable === true) return true;
      if (node.getAttribute('draggable') === 'false') return false;
    }
    return false;
  }

  // A text field takes focus with the caret after its content, as a click at its end
  // would leave it, so that keyboard_type and insert_text add to the value.
  function opFocus(args, table) {
    const el = resolveTarget(args, table);
    el.focus();
    const focused = deepActiveElement(el.ownerDocument) === el;
    const text = focused && (fieldKind(el) === 'text' || fieldKind(el) === 'editable');
    return { focused, caret_by_engine: text && !caretToEnd(el) };
  }
