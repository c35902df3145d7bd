  // Visibility: whether an element is rendered, hidden itself, or hidden with its subtree.

  // ---------------------------------------------------------------------------------------
  // Visibility

  // Hidden by markup alone: no style lookup needed, and the whole subtree goes.
  function isHiddenByMarkup(el) {
    if (SKIP_TAGS.has(el.localName)) return true;
    if (!el.hasAttributes()) return false;
    if (el.hasAttribute('hidden') || el.hasAttribute('inert')) return true;
    if (el.getAttribute('aria-hidden') === 'true') return true;
    return el.localName === 'input' && el.type === 'hidden';
  }

  function visibilityOf(el) {
    // checkVisibility is one cheap call when it says yes, the common case.
    if (typeof el.checkVisibility === 'function' && el.checkVisibility(VISIBILITY_OPTIONS)) {
      return VISIBLE;
    }
    const style = getComputedStyle(el);
    const display = style.display;
    if (display === 'none') return SUBTREE_HIDDEN;
    if (style.visibility !== 'visible') return SELF_HIDDEN;
    if (display === 'contents') return VISIBLE; // no box of its own, but its content shows
    if (typeof el.checkVisibility === 'function') {
      return SUBTREE_HIDDEN; // no box for another reason: content-visibility, closed <details>...
    }
    // Engines without checkVisibility: no box also when an ancestor is display:none.
    return el.getClientRects().length > 0 ? VISIBLE : SUBTREE_HIDDEN;
  }

  function cachedVisibility(el, ctx) {
    const cache = ctx && ctx.visibility;
    if (!cache) return visibilityOf(el);
    let v = cache.get(el);
    if (v === undefined) {
      v = visibilityOf(el);
      cache.set(el, v);
    }
    return v;
  }

  function isRendered(el) {
    if (typeof el.checkVisibility === 'function') return el.checkVisibility(VISIBILITY_OPTIONS);
    const style = getComputedStyle(el);
    return style.visibility === 'visible' && el.getClientRects().length > 0;
  }
