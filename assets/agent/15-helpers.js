  // Errors (AgentError, fail) and small helpers: text, role tokens, tree walks, events.

  // ---------------------------------------------------------------------------------------
  // Errors

  class AgentError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  function fail(code, message) {
    return new AgentError(code, message);
  }

  // ---------------------------------------------------------------------------------------
  // Small helpers

  function normalize(text) {
    return text.replace(/\s+/g, ' ').trim();
  }

  // Cut to `max` UTF-16 units with a marker, never through a surrogate pair: half of one
  // is no character, and no JSON parser outside the engine reads it.
  function clamp(text, max) {
    if (text.length <= max) return text;
    let end = max - 1;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    return text.slice(0, end) + '…';
  }

  // An attribute's text with ASCII whitespace collapsed (a no-break space is kept, as
  // browsers keep it in names).
  function trimAttr(el, name) {
    const v = el.getAttribute(name);
    return v ? v.replace(/[ \t\n\f\r]+/g, ' ').replace(/^ | $/g, '') : '';
  }

  // WAI-ARIA 1.2's concrete roles: a role attribute takes its first token that is one of them.
  const ARIA_ROLES = new Set([
    'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption',
    'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'complementary', 'contentinfo',
    'definition', 'deletion', 'dialog', 'directory', 'document', 'emphasis', 'feed', 'figure', 'form',
    'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'image', 'insertion', 'link', 'list',
    'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'menu', 'menubar', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'meter', 'navigation', 'none', 'note', 'option', 'paragraph',
    'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader',
    'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong',
    'subscript', 'suggestion', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term',
    'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
    'graphics-document', 'graphics-object', 'graphics-symbol',
  ]);

  function firstValidRole(text) {
    for (const token of text.toLowerCase().split(/\s+/)) {
      if (ARIA_ROLES.has(token)) return token === 'image' ? 'img' : token;
    }
    return '';
  }

  function quote(text) {
    if (text.indexOf('"') < 0 && text.indexOf('\\') < 0) return text;
    return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  }

  function hasOwnName(el) {
    return !!(trimAttr(el, 'aria-label') || labelledByIds(el) !== null || trimAttr(el, 'title'));
  }

  // aria-labelledby, or aria-labeledby as browsers also accept it; null when neither is set.
  function labelledByIds(el) {
    const ids = el.getAttribute('aria-labelledby');
    return ids !== null ? ids : el.getAttribute('aria-labeledby');
  }

  // Calls fn for each child of node as the page renders them: an open shadow root replaces
  // the light children, and a slot shows what is assigned to it (or its fallback content).
  // fn returning false stops the loop.
  function forEachRenderedChild(node, fn) {
    let parent = node;
    if (node.shadowRoot) {
      parent = node.shadowRoot;
    } else if (node.localName === 'slot' && typeof node.assignedNodes === 'function') {
      const assigned = node.assignedNodes({ flatten: true });
      if (assigned.length) {
        for (const kid of assigned) if (fn(kid) === false) return;
        return;
      }
    }
    for (let kid = parent.firstChild; kid; kid = kid.nextSibling) {
      if (fn(kid) === false) return;
    }
  }

  // `contains` that also crosses shadow boundaries.
  function composedContains(ancestor, node) {
    for (let n = node; n; n = n.parentNode || n.host) {
      if (n === ancestor) return true;
    }
    return false;
  }

  function deepActiveElement(doc) {
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active;
  }

  function dispatchValueEvents(el) {
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  function withInstantBehavior(run, fallback) {
    // 'instant' beats a page's `scroll-behavior: smooth`, so positions are final on return;
    // engines that predate the value reject it, hence the fallback.
    try {
      run('instant');
    } catch (_) {
      fallback();
    }
  }
