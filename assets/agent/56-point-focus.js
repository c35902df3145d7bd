  // Clicking and focusing (opPoint, opFocus): where a click lands and what it reaches.

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

  function centreInView(rect, view) {
    const left = Math.max(rect.left, 0);
    const top = Math.max(rect.top, 0);
    const right = Math.min(rect.right, view.width);
    const bottom = Math.min(rect.bottom, view.height);
    if (right <= left || bottom <= top) return null;
    const half = (v) => Math.round(v * 2) / 2;
    return { x: half((left + right) / 2), y: half((top + bottom) / 2) };
  }

  // Centre of the element's visible part, scrolling it into view first when needed.
  function locate(clicked, view, alreadyScrolled) {
    let rect = sizedRectOf(clicked);
    if (rect && !alreadyScrolled && !isFullyInView(rect, view)) {
      scrollIntoViewInstant(clicked);
      rect = sizedRectOf(clicked);
    }
    return rect && centreInView(rect, view);
  }

  function opPoint(args, table) {
    const target = resolveTarget(args, table);
    const tag = target.localName;
    const select = tag === 'option' ? target.closest('select') : null;
    if (select && roleOf(select, 'select') === 'combobox') {
      // Its menu is the browser's, not the page's: pick it as a person would from it.
      if (args.choose) return { chosen: chooseOptions(select, [target]) };
      throw fail('NOT_INTERACTABLE',
        "an option of a drop-down <select> has no place on the page; click it or use select with its ref");
    }
    let clicked = target;
    if (visibilityOf(target) !== VISIBLE || !sizedRectOf(target)) {
      clicked = visibleLabelFor(target);
      if (!clicked) throw fail('NOT_INTERACTABLE', 'element is hidden (not displayed or zero size)');
    }
    if (isDisabled(target, tag)) throw fail('NOT_INTERACTABLE', 'element is disabled');
    const doc = target.ownerDocument;
    const chain = frameChain(doc, table.doc) || [];
    const view = viewportSize(doc);
    let point = locate(clicked, view, false);
    let hit = point && deepElementFromPoint(doc, point.x, point.y);
    if (!hit || !hitReaches(target, clicked, hit)) {
      // Maybe clipped by a scrolling container: centre it and look again once.
      scrollIntoViewInstant(clicked);
      point = locate(clicked, view, true);
      hit = point && deepElementFromPoint(doc, point.x, point.y);
    }
    if (!point || !hit) {
      throw fail('NOT_INTERACTABLE', 'element is outside the visible area and could not be scrolled into view');
    }
    if (!hitReaches(target, clicked, hit)) {
      throw fail('NOT_INTERACTABLE',
        `element is covered by ${shortDescription(hit)}; close or dismiss that first, or scroll`);
    }
    const role = roleOf(target, tag) || 'generic';
    if (chain.length) point = toTopPoint(point, chain);
    return {
      x: point.x + place.x,
      y: point.y + place.y,
      vw: place.vw || innerWidth,
      vh: place.vh || innerHeight,
      tag,
      role,
      draggable: isDraggable(target),
      name: nameOf(target, role, newContext(table)),
    };
  }

  // Starts an HTML drag: draggable="true" on it or an ancestor, or a link or image.
  function isDraggable(el) {
    for (let node = el; node && node.nodeType === ELEMENT_NODE; node = node.parentElement) {
      if (node.draggable === true) return true;
      if (node.getAttribute('draggable') === 'false') return false;
    }
    return false;
  }

  function opFocus(args, table) {
    const el = resolveTarget(args, table);
    el.focus();
    return { focused: deepActiveElement(el.ownerDocument) === el };
  }
