// Sovereign Browser agent library.
//
// Injected at document start into every frame, in an isolated script world: pages can
// neither see it nor break it by patching their own DOM prototypes, and it still sees the
// DOM. The host calls `__sovereignAgent.call(op, args)` and always gets a JSON string back:
// {"ok":true,"value":...} or {"ok":false,"code":"...","message":"..."}.
(function () {
  'use strict';

  // Injected twice into the same world: keep the first copy, and with it the ref tables.
  if (typeof globalThis.__sovereignAgent === 'object' && globalThis.__sovereignAgent !== null) {
    return;
  }

  // ---------------------------------------------------------------------------------------
  // Constants

  const NAME_MAX = 100;
  const VALUE_MAX = 200;
  // Stop collecting descendant text early: a link that wraps a whole card must stay cheap.
  const NAME_BUDGET = 400;
  const DEFAULT_MAX_CHARS = 60000;
  const DEFAULT_SCROLL = 500;

  const ELEMENT_NODE = 1;
  const TEXT_NODE = 3;

  const VISIBLE = 0; // rendered
  const SELF_HIDDEN = 1; // visibility:hidden: descendants may still be visible
  const SUBTREE_HIDDEN = 2; // display:none or not rendered at all
  const VISIBILITY_OPTIONS = { visibilityProperty: true, checkVisibilityCSS: true };

  // Elements whose content is never rendered as part of the page.
  const SKIP_TAGS = new Set([
    'script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base',
    'datalist', 'param', 'source', 'track',
  ]);

  // Block-level elements: their text never runs into the text around them.
  const BLOCK_TAGS = new Set([
    'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog',
    'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3',
    'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section',
    'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'legend',
  ]);

  // Tags that can be listed in interactive mode even without attributes.
  const INTERACTIVE_MODE_TAGS = new Set([
    'a', 'area', 'button', 'input', 'select', 'textarea', 'summary', 'h1', 'h2', 'h3', 'h4',
    'h5', 'h6', 'iframe', 'frame', 'svg',
  ]);

  const INTERACTIVE_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'switch', 'textbox', 'combobox', 'slider', 'spinbutton',
    'searchbox', 'treeitem', 'listbox',
  ]);

  // Roles whose accessible name may come from their content (ARIA "name from content").
  const NAME_FROM_CONTENT = new Set([
    'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab',
    'tooltip', 'treeitem',
  ]);

  const CHECKABLE_ROLES = new Set([
    'checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio',
  ]);
  const SELECTABLE_ROLES = new Set(['option', 'tab', 'row', 'gridcell', 'treeitem']);
  const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'scrollbar', 'meter']);
  const FORM_CONTROL_TAGS = new Set([
    'button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset',
  ]);
  const LABELABLE_SELECTOR =
    'input:not([type=hidden]),select,textarea,button,meter,output,progress';

  // Input types the host fills by selecting the content and typing.
  const TEXT_INPUT_TYPES = new Set(['text', 'email', 'password', 'search', 'tel', 'url', 'number']);
  // Input types with a native picker: the value is set directly.
  const SET_INPUT_TYPES = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  const VALUE_FORMATS = {
    date: 'YYYY-MM-DD',
    time: 'HH:MM or HH:MM:SS',
    'datetime-local': 'YYYY-MM-DDTHH:MM',
    month: 'YYYY-MM',
    week: 'YYYY-Www, e.g. 2024-W07',
    color: '#rrggbb',
    range: 'a number',
  };

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

  function clamp(text, max) {
    return text.length > max ? text.slice(0, max - 1) + '…' : text;
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

  // ---------------------------------------------------------------------------------------
  // Refs: one table per document. Numbers only grow and are never reused in a document;
  // the host passes `floor` so numbers never go back below those of an earlier page.

  const tables = new WeakMap();
  const makeWeak = typeof WeakRef === 'function'
    ? (el) => new WeakRef(el)
    : (el) => ({ deref: () => el });

  function tableFor(doc) {
    let table = tables.get(doc);
    if (!table) {
      table = { doc, next: 1, byNumber: new Map(), byElement: new WeakMap(), pruneAt: 4096 };
      tables.set(doc, table);
    }
    return table;
  }

  function applyFloor(table, floor) {
    const f = Number(floor);
    if (Number.isInteger(f) && f > table.next) table.next = f;
  }

  function refOf(table, el) {
    let n = table.byElement.get(el);
    if (n === undefined) {
      n = table.next++;
      table.byElement.set(el, n);
      table.byNumber.set(n, makeWeak(el));
      if (table.byNumber.size >= table.pruneAt) pruneRefs(table);
    }
    return n;
  }

  // Drop entries whose element was collected; the counter alone remembers they were issued.
  function pruneRefs(table) {
    for (const [n, weak] of table.byNumber) {
      if (!weak.deref()) table.byNumber.delete(n);
    }
    table.pruneAt = Math.max(4096, table.byNumber.size * 2);
  }

  function parseRef(ref) {
    if (typeof ref !== 'string') throw fail('INVALID_PARAMS', 'ref must look like @e12');
    const m = /^\[?(?:ref=)?@?e(\d{1,9})\]?$/.exec(ref.trim());
    if (!m) throw fail('INVALID_PARAMS', 'ref must look like @e12');
    return Number(m[1]);
  }

  function resolveRef(table, ref) {
    const n = parseRef(ref);
    const weak = table.byNumber.get(n);
    const el = weak && weak.deref();
    if (el && el.isConnected && (el.ownerDocument === table.doc || frameChain(el.ownerDocument, table.doc))) return el;
    if (n < table.next) {
      throw fail('STALE_REF', `ref @${refText(n)} no longer exists (the page changed); take a new snapshot`);
    }
    throw fail('ELEMENT_NOT_FOUND', `no element has ref @${refText(n)}; take a snapshot to get refs`);
  }

  function querySelectorChecked(root, selector) {
    if (typeof selector !== 'string' || selector.trim() === '') {
      throw fail('INVALID_PARAMS', 'selector must be a non-empty CSS selector string');
    }
    try {
      return root.querySelector(selector);
    } catch (e) {
      throw fail('INVALID_PARAMS', `invalid CSS selector: ${selector} (${e && e.message})`);
    }
  }

  function hasTarget(args) {
    return (args.ref != null && args.ref !== '') || (args.selector != null && args.selector !== '');
  }

  function resolveTarget(args, table) {
    if (args.ref != null && args.ref !== '') return resolveRef(table, args.ref);
    if (args.selector != null && args.selector !== '') {
      const el = querySelectorChecked(scopeOf(table), args.selector);
      if (!el) {
        throw fail('ELEMENT_NOT_FOUND',
          `no element matches selector ${args.selector}; check it, or take a snapshot and use a ref`);
      }
      return el;
    }
    throw fail('INVALID_PARAMS', 'give a target: ref (like @e12, from a snapshot) or selector (CSS)');
  }

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

  // ---------------------------------------------------------------------------------------
  // Roles

  function inputRole(el) {
    switch (el.type) {
      case 'checkbox':
      case 'radio':
        return el.type;
      case 'range':
        return 'slider';
      case 'number':
        return 'spinbutton';
      case 'search':
        return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'submit':
      case 'reset':
      case 'button':
      case 'image':
      case 'file':
        return 'button';
      case 'hidden':
        return '';
      default:
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
  }

  // header/footer are landmarks only at page level, not inside sectioning content.
  function inSectioningContent(el) {
    const parent = el.parentElement;
    return !!(parent && parent.closest('article,aside,main,nav,section'));
  }

  // HTML-AAM implicit roles. '' means the element adds no node of its own.
  function implicitRole(el, tag) {
    switch (tag) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : '';
      case 'button':
      case 'summary':
        return 'button';
      case 'input':
        return inputRole(el);
      case 'textarea':
        return 'textbox';
      case 'select':
        return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'option':
        return 'option';
      case 'optgroup':
      case 'details':
      case 'fieldset':
        return 'group';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        return 'heading';
      case 'ul':
      case 'ol':
      case 'menu':
        return 'list';
      case 'li':
        return 'listitem';
      case 'table':
        return 'table';
      case 'thead':
      case 'tbody':
      case 'tfoot':
        return 'rowgroup';
      case 'blockquote':
        return 'blockquote';
      case 'math':
        return 'math';
      case 'dt':
        return 'term';
      case 'dd':
        return 'definition';
      // No role of their own, but a node when named (abbr by its title).
      case 'dl':
      case 'abbr':
        return 'generic';
      case 'tr':
        return 'row';
      case 'td':
        return 'cell';
      case 'th':
        return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'nav':
        return 'navigation';
      case 'main':
        return 'main';
      case 'aside':
        return 'complementary';
      case 'header':
        return inSectioningContent(el) ? 'generic' : 'banner';
      case 'footer':
        return inSectioningContent(el) ? 'generic' : 'contentinfo';
      case 'form':
        return hasOwnName(el) ? 'form' : 'generic';
      case 'section':
        return hasOwnName(el) ? 'region' : 'generic';
      case 'article':
        return 'article';
      case 'dialog':
        return 'dialog';
      case 'img':
        // alt="" marks a decorative image, unless the page names it another way.
        return el.getAttribute('alt') === '' && !trimAttr(el, 'aria-label') && labelledByIds(el) === null
          ? 'presentation' : 'img';
      case 'figure':
        return 'figure';
      case 'hr':
        return 'separator';
      case 'progress':
        return 'progressbar';
      case 'meter':
        return 'meter';
      case 'output':
        return 'status';
      case 'iframe':
      case 'frame':
        return 'iframe';
      case 'svg':
        return 'img';
      case 'div':
        return 'generic';
      default:
        return '';
    }
  }

  function isEditable(el) {
    if (typeof el.isContentEditable === 'boolean') return el.isContentEditable;
    for (let n = el; n && n.nodeType === ELEMENT_NODE; n = n.parentElement) {
      const ce = n.getAttribute('contenteditable');
      if (ce !== null) return ce !== 'false';
    }
    return false;
  }

  // The element where editing starts (its parent is not editable itself).
  function isEditingHost(el) {
    const ce = el.getAttribute('contenteditable');
    if (ce === null || ce === 'false') return false;
    const parent = el.parentElement;
    return !(parent && isEditable(parent));
  }

  function roleOf(el, tag) {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const role = firstValidRole(explicit);
      // ARIA's conflict rule: a focusable element is never presentational.
      const presentational = role === 'none' || role === 'presentation';
      if (role && !(presentational && isFocusable(el, tag))) return presentational ? 'presentation' : role;
    }
    const role = implicitRole(el, tag);
    if ((role === '' || role === 'generic') && el.hasAttributes() && isEditingHost(el)) {
      return 'textbox';
    }
    return role;
  }

  function isFocusable(el, tag) {
    if (el.hasAttribute('tabindex')) return true;
    if (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea') {
      return !el.disabled && !(tag === 'input' && el.type === 'hidden');
    }
    return (tag === 'a' || tag === 'area') && el.hasAttribute('href');
  }

  function isInteractive(el, role) {
    if (INTERACTIVE_ROLES.has(role)) return true;
    if (!el.hasAttributes()) return false;
    if (el.hasAttribute('onclick')) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && parseInt(tabindex, 10) >= 0;
  }

  function isDisabled(el, tag) {
    if (FORM_CONTROL_TAGS.has(tag)) {
      try {
        if (el.matches(':disabled')) return true; // also covers a disabled <fieldset> around it
      } catch (_) {
        if (el.disabled) return true;
      }
    }
    return el.getAttribute('aria-disabled') === 'true';
  }

  // ---------------------------------------------------------------------------------------
  // Accessible names (simplified accname: the common cases, computed cheaply)

  function newContext(table, options) {
    return Object.assign({
      table,
      labelMaps: new Map(),
      pseudoRoots: new Map(),
      visibility: null,
      skip: null,
      modal: null,
    }, options || {});
  }

  // label[for] elements of one tree (document or shadow root), indexed once per call:
  // element.labels would rescan the document for every control.
  function labelMapFor(root, ctx) {
    let map = ctx.labelMaps.get(root);
    if (!map) {
      map = new Map();
      if (typeof root.querySelectorAll === 'function') {
        for (const label of root.querySelectorAll('label[for]')) {
          const id = label.getAttribute('for');
          const list = map.get(id);
          if (list) list.push(label);
          else map.set(id, [label]);
        }
      }
      ctx.labelMaps.set(root, map);
    }
    return map;
  }

  function labelsOf(el, ctx) {
    const labels = [];
    if (el.id) {
      const found = labelMapFor(el.getRootNode(), ctx).get(el.id);
      if (found) labels.push(...found);
    }
    const wrapper = el.parentElement && el.parentElement.closest('label');
    // A wrapping label without `for` labels its first labelable descendant only.
    if (wrapper && !wrapper.hasAttribute('for') && wrapper.querySelector(LABELABLE_SELECTOR) === el) {
      labels.push(wrapper);
    }
    return labels;
  }

  function labelsText(el, ctx) {
    const labels = labelsOf(el, ctx);
    if (!labels.length) return '';
    return normalize(labels.map((label) => contentText(label, ctx, el, false)).join(' '));
  }

  function selectedOptionsText(select) {
    const parts = [];
    for (const option of select.options) {
      if (option.selected) parts.push(normalize(option.label || option.text));
    }
    return parts.join(', ');
  }

  function svgTitle(svg) {
    const aria = trimAttr(svg, 'aria-label');
    if (aria) return aria;
    const title = svg.querySelector('title');
    if (title) return normalize(title.textContent);
    // Text drawn in the icon itself (a "B" for bold).
    return normalize(Array.from(svg.querySelectorAll('text'), (t) => t.textContent).join(' '));
  }

  const NESTED_OWN_NAME = new Set(['group', 'tree', 'treeitem', 'menu', 'listbox']);

  // What an embedded element contributes to its ancestor's name, or null to recurse into it.
  function embeddedText(el) {
    // A slot has no box of its own: what is slotted in is read, not its label.
    const aria = el.localName === 'slot' ? '' : trimAttr(el, 'aria-label');
    if (aria) return aria;
    switch (el.localName) {
      case 'img':
      case 'area':
        return el.getAttribute('alt') || '';
      case 'input':
        return inputText(el);
      case 'textarea':
        return el.value;
      case 'select':
        return selectedOptionsText(el);
      case 'svg':
        return svgTitle(el);
      case 'br':
        return ' ';
      default:
        return null;
    }
  }

  function inputText(input) {
    switch (input.type) {
      case 'submit':
        return input.value || 'Submit';
      case 'reset':
        return input.value || 'Reset';
      case 'button':
        return input.value;
      case 'image':
        return input.getAttribute('alt') || input.value || 'Submit';
      case 'checkbox':
      case 'radio':
      case 'file':
      case 'hidden':
        return '';
      default:
        return input.value;
    }
  }

  // Text content the way a screen reader reads it: images by alt, controls by value,
  // CSS ::before and ::after content in place, hidden parts left out. `skip` is the
  // control whose label is being read.
  function contentText(root, ctx, skip, includeHidden) {
    const pseudo = mayHavePseudoContent(root, ctx);
    // Fast path for the common <a>Text</a>, <button>Text</button>.
    const only = root.firstChild;
    if (!pseudo && only && only.nodeType === TEXT_NODE && only === root.lastChild && !root.shadowRoot) {
      return clamp(normalize(only.data), NAME_MAX);
    }
    const acc = { parts: [], length: 0, pseudo };
    if (pseudo) acc.parts.push(pseudoText(root, '::before'));
    appendContent(root, ctx, skip, includeHidden, acc);
    if (pseudo) acc.parts.push(pseudoText(root, '::after'));
    return clamp(normalize(acc.parts.join('')), NAME_MAX);
  }

  function isInlineBox(el) {
    const display = getComputedStyle(el).display;
    return display === 'inline' || display === 'contents' || display === 'none';
  }

  // Whether the style sheets of el's tree (its document or shadow root) give any
  // ::before or ::after content: looked up once per tree per call, so that pages
  // without such rules never pay for a pseudo-element's computed style.
  function mayHavePseudoContent(el, ctx) {
    const root = el.getRootNode();
    let known = ctx.pseudoRoots.get(root);
    if (known === undefined) {
      known = sheetsHavePseudoContent(root);
      ctx.pseudoRoots.set(root, known);
    }
    return known;
  }

  function sheetsHavePseudoContent(root) {
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    for (const sheet of sheets) {
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (_) {
        return true; // another origin's sheet: it may
      }
      if (rulesHavePseudoContent(rules)) return true;
    }
    return false;
  }

  const PSEUDO_SELECTOR = /:(before|after)\b/i;

  function rulesHavePseudoContent(rules) {
    for (const rule of rules) {
      if (rule.selectorText && PSEUDO_SELECTOR.test(rule.selectorText)) {
        const content = rule.style && rule.style.content;
        if (content && content !== 'none' && content !== 'normal') return true;
      }
      if (rule.cssRules && rulesHavePseudoContent(rule.cssRules)) return true;
    }
    return false;
  }

  // The text a ::before or ::after gives el: its content's strings and attr() values,
  // or its alternative text after a "/" when it has one (content: "★" / "Starred").
  function pseudoText(el, which) {
    const style = getComputedStyle(el, which);
    const content = style.content;
    if (!content || content === 'none' || content === 'normal' || style.display === 'none') return '';
    const [text, alt] = contentValueText(content, el);
    const shown = alt === null ? text : alt;
    return style.display === 'inline' ? shown : ` ${shown} `;
  }

  function contentValueText(value, el) {
    let main = '';
    let alt = null;
    let i = 0;
    const add = (text) => {
      if (alt === null) main += text;
      else alt += text;
    };
    while (i < value.length) {
      const c = value[i];
      if (c === '"' || c === "'") {
        let text = '';
        i++;
        while (i < value.length && value[i] !== c) {
          if (value[i] === '\\') {
            const hex = /^[0-9a-fA-F]{1,6}/.exec(value.slice(i + 1));
            if (hex) {
              text += String.fromCodePoint(parseInt(hex[0], 16));
              i += 1 + hex[0].length;
              if (value[i] === ' ') i++;
              continue;
            }
            i++;
          }
          text += value[i] || '';
          i++;
        }
        add(text);
        i++;
      } else if (c === '/') {
        alt = '';
        i++;
      } else if (/[a-zA-Z-]/.test(c)) {
        const fn = /^([a-zA-Z-]+)\(([^)]*)\)/.exec(value.slice(i));
        if (fn) {
          if (fn[1].toLowerCase() === 'attr') add(el.getAttribute(fn[2].trim().split(/\s+/)[0]) || '');
          i += fn[0].length;
        } else {
          i++;
        }
      } else {
        i++;
      }
    }
    return [main, alt];
  }

  function appendContent(node, ctx, skip, includeHidden, acc) {
    forEachRenderedChild(node, (kid) => {
      if (acc.length >= NAME_BUDGET) return false;
      if (kid.nodeType === TEXT_NODE) {
        acc.parts.push(kid.data);
        acc.length += kid.data.length;
        return true;
      }
      if (kid.nodeType !== ELEMENT_NODE || kid === skip) return true;
      if (includeHidden ? SKIP_TAGS.has(kid.localName) : isHiddenByMarkup(kid)) return true;
      if (!includeHidden && cachedVisibility(kid, ctx) !== VISIBLE) return true;
      // A nested tree item or group names itself, not its parent.
      if (NESTED_OWN_NAME.has(kid.getAttribute('role'))) return true;
      // A box that is not inline (block, inline-block, flex or grid item) stands
      // apart from the text around it, as browsers read it.
      const block = BLOCK_TAGS.has(kid.localName) || !isInlineBox(kid);
      if (block) acc.parts.push(' ');
      const own = embeddedText(kid);
      if (own === null) {
        if (acc.pseudo) acc.parts.push(pseudoText(kid, '::before'));
        appendContent(kid, ctx, skip, includeHidden, acc);
        if (acc.pseudo) acc.parts.push(pseudoText(kid, '::after'));
      } else {
        // Embedded content (an image's alt, a field's value) stands apart
        // from the text around it, as browsers read it.
        acc.parts.push(' ', own, ' ');
        acc.length += own.length + 2;
      }
      if (block) acc.parts.push(' ');
      return true;
    });
  }

  function labelledByText(el, ctx) {
    const ids = labelledByIds(el);
    if (!ids || !ids.trim()) return '';
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.trim().split(/\s+/)) {
      const target = (typeof root.getElementById === 'function' && root.getElementById(id))
        || document.getElementById(id);
      if (!target) continue;
      // A referenced element counts even when hidden (a common pattern for off-screen
      // labels), with its hidden parts; a shown one counts with its shown parts only.
      const own = target === el ? trimAttr(el, 'aria-label') : embeddedText(target);
      const hidden = !isRendered(target) || !!target.closest('[aria-hidden="true"]');
      parts.push(own || contentText(target, ctx, null, hidden));
    }
    return normalize(parts.join(' '));
  }

  function nativeName(el, tag, ctx) {
    switch (tag) {
      case 'input': {
        const type = el.type;
        // HTML-AAM: a button input's label comes before its value.
        if (type === 'submit' || type === 'reset' || type === 'button') {
          return labelsText(el, ctx) || inputText(el);
        }
        if (type === 'image') return inputText(el) || labelsText(el, ctx);
        return labelsText(el, ctx);
      }
      case 'select':
      case 'textarea':
      case 'button':
      case 'meter':
      case 'output':
      case 'progress':
        return labelsText(el, ctx);
      case 'img':
      case 'area':
        return trimAttr(el, 'alt');
      case 'fieldset': {
        const legend = el.querySelector(':scope > legend');
        return legend ? contentText(legend, ctx, null, false) : '';
      }
      case 'table': {
        const caption = el.caption;
        return caption ? contentText(caption, ctx, null, false) : '';
      }
      case 'svg':
        return svgTitle(el);
      case 'iframe':
      case 'frame':
        return trimAttr(el, 'title') || trimAttr(el, 'name');
      default:
        return '';
    }
  }

  // Returns [name, fromContent]. Order: aria-labelledby, aria-label, native label,
  // content (for roles that take it), title, placeholder.
  function computeName(el, role, tag, ctx, allowContent) {
    const hasAttributes = el.hasAttributes();
    if (hasAttributes) {
      const byIds = labelledByText(el, ctx);
      if (byIds) return [clamp(byIds, NAME_MAX), false];
      const aria = trimAttr(el, 'aria-label');
      if (aria) return [clamp(aria, NAME_MAX), false];
    }
    const native = nativeName(el, tag, ctx);
    if (native) return [clamp(native, NAME_MAX), false];
    if (allowContent) {
      const content = contentText(el, ctx, null, false);
      if (content) return [content, true];
    }
    if (!hasAttributes) return ['', false];
    const title = trimAttr(el, 'title');
    if (title) return [clamp(title, NAME_MAX), false];
    const placeholder = trimAttr(el, 'placeholder') || trimAttr(el, 'aria-placeholder');
    return [clamp(placeholder, NAME_MAX), false];
  }

  function nameOf(el, role, ctx) {
    const allowContent = NAME_FROM_CONTENT.has(role) || role === '' || role === 'generic';
    return computeName(el, role, el.localName, ctx, allowContent)[0];
  }

  // ---------------------------------------------------------------------------------------
  // States and values

  function checkedState(el, tag) {
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.type === 'checkbox' && el.indeterminate) return 'mixed';
      return el.checked ? 'true' : '';
    }
    const aria = el.getAttribute('aria-checked');
    return aria === 'true' || aria === 'mixed' ? aria : '';
  }

  function expandedState(el, tag) {
    if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
      return el.parentElement.open ? 'true' : 'false';
    }
    const aria = el.getAttribute('aria-expanded');
    return aria === 'true' || aria === 'false' ? aria : '';
  }

  function statesOf(el, role, tag, name) {
    let s = '';
    if (role === 'heading') s += ` [level=${headingLevel(el, tag)}]`;
    if (CHECKABLE_ROLES.has(role)) {
      const checked = checkedState(el, tag);
      if (checked === 'true') s += ' [checked]';
      else if (checked === 'mixed') s += ' [checked=mixed]';
    }
    if (SELECTABLE_ROLES.has(role)) {
      if (tag === 'option' ? el.selected : el.getAttribute('aria-selected') === 'true') s += ' [selected]';
    }
    // ARIA states need attributes; most elements have none, which saves the lookups.
    const hasAttributes = el.hasAttributes();
    if (hasAttributes || tag === 'summary') {
      const expanded = expandedState(el, tag);
      if (expanded === 'true') s += ' [expanded]';
      else if (expanded === 'false') s += ' [expanded=false]';
    }
    if (hasAttributes) {
      const pressed = el.getAttribute('aria-pressed');
      if (pressed === 'true') s += ' [pressed]';
      else if (pressed === 'mixed') s += ' [pressed=mixed]';
    }
    if ((hasAttributes || FORM_CONTROL_TAGS.has(tag)) && isDisabled(el, tag)) s += ' [disabled]';
    if (el.required === true || (hasAttributes && el.getAttribute('aria-required') === 'true')) {
      s += ' [required]';
    }
    if ((tag === 'input' || tag === 'textarea') && el.readOnly) s += ' [readonly]';
    // An unnamed link is useless to a model without knowing where it goes.
    if (role === 'link' && !name && el.hasAttribute('href')) {
      s += ` [href=${clamp(el.getAttribute('href'), NAME_MAX)}]`;
    }
    return s;
  }

  function headingLevel(el, tag) {
    const aria = parseInt(el.getAttribute('aria-level'), 10);
    if (aria > 0) return aria;
    return /^h[1-6]$/.test(tag) ? Number(tag[1]) : 2;
  }

  function clampValue(text) {
    const v = normalize(text);
    return v ? clamp(v, VALUE_MAX) : null;
  }

  // The value shown after the colon: what a field currently holds.
  function valueOf(el, role, tag) {
    switch (tag) {
      case 'input': {
        const type = el.type;
        if (type === 'checkbox' || type === 'radio' || type === 'file' || type === 'hidden') return null;
        if (role === 'button') return null;
        if (!el.value) return null;
        // Never echo a secret into the model's context or logs; the length is enough to check.
        if (type === 'password') return '•'.repeat(Math.min(el.value.length, 16));
        return clampValue(el.value);
      }
      case 'textarea':
        return clampValue(el.value);
      case 'select':
        return role === 'combobox' ? clampValue(selectedOptionsText(el)) : null;
      case 'progress':
        return el.hasAttribute('value') ? String(el.value) : null;
      case 'meter':
        return String(el.value);
      default:
        break;
    }
    if (role === 'textbox' && isEditable(el)) return clampValue(el.textContent);
    if (RANGE_ROLES.has(role)) {
      return trimAttr(el, 'aria-valuetext') || trimAttr(el, 'aria-valuenow') || null;
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------
  // Snapshot

  const BREAK = { isBreak: true };
  const NO_CHILDREN = [];

  function describe(el, role, tag, ctx, interactive) {
    const shownRole = role && role !== 'presentation' ? role : 'generic';
    // In the full tree a heading or cell is named from its text runs when rendered:
    // the walk collects that text anyway, so it is not read twice.
    const nameFromText = !ctx.interactive && !interactive && NAME_FROM_CONTENT.has(shownRole);
    const allowContent = !nameFromText
      && (NAME_FROM_CONTENT.has(shownRole) || (interactive && shownRole === 'generic'));
    const [name, fromContent] = computeName(el, shownRole, tag, ctx, allowContent);
    if (tag === 'table' || tag === 'fieldset') markCaptionUsedAsName(el, tag, ctx);
    return {
      role: shownRole,
      name,
      fromContent,
      nameFromText,
      // A frame gets a ref too: frame_switch takes it.
      ref: interactive || shownRole === 'iframe' ? refOf(ctx.table, el) : 0,
      states: statesOf(el, shownRole, tag, name) + (el === ctx.modal ? ' [modal]' : ''),
      value: valueOf(el, shownRole, tag),
      children: NO_CHILDREN,
    };
  }

  // A caption or legend that became the table's or group's name is not repeated as text.
  function markCaptionUsedAsName(el, tag, ctx) {
    if (!ctx.skip || el.hasAttribute('aria-label') || labelledByIds(el) !== null) return;
    const caption = tag === 'table' ? el.caption : el.querySelector(':scope > legend');
    if (caption) ctx.skip.add(caption);
  }

  function lineFor(node) {
    let line = '- ' + node.role;
    if (node.name) line += ' "' + quote(node.name) + '"';
    if (node.ref) line += ' [ref=' + refText(node.ref) + ']';
    line += node.states;
    if (node.value !== null) line += ': ' + node.value;
    return line;
  }

  // In compact mode a <label for=...> is dropped: its text is already the control's name.
  function isRedundantLabel(el, ctx) {
    if (!ctx.compact || !el.hasAttribute('for')) return false;
    const root = el.getRootNode();
    const control = typeof root.getElementById === 'function' ? root.getElementById(el.getAttribute('for')) : null;
    return !!(control && control.matches(LABELABLE_SELECTOR) && !el.querySelector(LABELABLE_SELECTOR + ',a[href]'));
  }

  // Like forEachRenderedChild, but a closed <details> shows only its summary.
  function forEachShownChild(el, tag, fn) {
    if (tag === 'details' && !el.open) {
      const summary = el.querySelector(':scope > summary');
      if (summary) fn(summary);
      return;
    }
    forEachRenderedChild(el, fn);
  }

  // --- interactive mode: a flat list of interactive elements plus headings for context.

  // Walks every element once, so the common case stays cheap: an element without
  // attributes whose tag cannot show anything here costs one Set lookup. Style is looked up
  // only for the elements that would be listed (checkVisibility sees hidden ancestors too).
  function visitInteractive(el, ctx, lines) {
    const tag = el.localName;
    if (SKIP_TAGS.has(tag)) return;
    const hasAttributes = el.hasAttributes();
    if (!hasAttributes && !INTERACTIVE_MODE_TAGS.has(tag)) {
      visitChildrenInteractive(el, tag, ctx, lines);
      return;
    }
    if (hasAttributes && isHiddenByMarkup(el)) return;
    const role = roleOf(el, tag);
    const interactive = isInteractive(el, role);
    if (interactive || role === 'heading' || role === 'iframe') {
      const visibility = cachedVisibility(el, ctx);
      if (visibility === SUBTREE_HIDDEN) return;
      if (visibility === VISIBLE) {
        const node = describe(el, role, tag, ctx, interactive);
        lines.push(lineFor(node));
        if (ctx.marks && node.ref) ctx.marks.push({ el, node });
        if (tag === 'select') pushOptionLines(optionNodes(el, ctx), lines);
        else if (tag === 'input' && el.list) pushOptionLines(datalistNodes(el, ctx), lines);
      }
    }
    if (tag === 'iframe' || tag === 'frame') {
      if (cachedVisibility(el, ctx) !== VISIBLE) return;
      const inner = sameOriginDocument(el);
      if (inner) {
        if (inner.body) visitInteractive(inner.body, ctx, lines);
      } else if (ctx.frames && el.contentWindow) {
        lines.push(FRAME_MARK + askFrameSnapshot(el, ctx));
      }
      return;
    }
    if (tag === 'select' || tag === 'svg') return;
    visitChildrenInteractive(el, tag, ctx, lines);
  }

  function visitChildrenInteractive(el, tag, ctx, lines) {
    if (el.shadowRoot || tag === 'slot' || tag === 'details') {
      forEachShownChild(el, tag, (kid) => {
        if (kid.nodeType === ELEMENT_NODE) visitInteractive(kid, ctx, lines);
      });
      return;
    }
    for (let kid = el.firstElementChild; kid; kid = kid.nextElementSibling) {
      visitInteractive(kid, ctx, lines);
    }
  }

  // The choices of a select or a datalist, under their control (indented: the
  // interactive view is otherwise flat), optgroups flattened, long lists cut.
  function pushOptionLines(nodes, lines) {
    for (const node of nodes) {
      if (node.role === 'group') {
        for (const option of node.children) lines.push('  ' + lineFor(option));
      } else {
        lines.push('  ' + lineFor(node));
      }
    }
  }

  // At most this many options are listed per control; the rest are counted.
  const OPTIONS_SHOWN = 50;

  function moreOptions(count) {
    return { role: '...', name: '', fromContent: false, ref: 0,
      states: ` ${count} more option${count === 1 ? '' : 's'}`, value: null, children: NO_CHILDREN };
  }

  // Options of a <select>, each with a ref: click or select takes it (a drop-down's
  // option is chosen as a person picking it from the menu would).
  function optionNodes(select, ctx) {
    const nodes = [];
    let shown = 0;
    let more = 0;
    const take = (option, into) => {
      if (option.localName !== 'option' || isHiddenByMarkup(option)) return;
      if (shown < OPTIONS_SHOWN) {
        into.push(describeOption(option, ctx, true));
        shown++;
      } else {
        more++;
      }
    };
    for (const kid of select.children) {
      if (isHiddenByMarkup(kid)) continue;
      if (kid.localName === 'option') {
        take(kid, nodes);
      } else if (kid.localName === 'optgroup') {
        const group = { role: 'group', name: trimAttr(kid, 'label'), fromContent: false, ref: 0,
          states: kid.disabled ? ' [disabled]' : '', value: null, children: [] };
        for (const option of kid.children) take(option, group.children);
        if (group.children.length) nodes.push(group);
      }
    }
    if (more) nodes.push(moreOptions(more));
    return nodes;
  }

  // Suggestions of an <input list>: named, without refs (fill takes their text).
  function datalistNodes(input, ctx) {
    const nodes = [];
    const options = input.list ? input.list.options : [];
    for (const option of options) {
      if (nodes.length === OPTIONS_SHOWN) {
        nodes.push(moreOptions(options.length - OPTIONS_SHOWN));
        break;
      }
      if (!option.disabled) nodes.push(describeOption(option, ctx, false));
    }
    return nodes;
  }

  function describeOption(option, ctx, withRef) {
    // A datalist's suggestion is often only a value.
    const name = clamp(normalize(option.label || option.text || option.value), NAME_MAX);
    return {
      role: 'option',
      name,
      fromContent: true,
      ref: withRef ? refOf(ctx.table, option) : 0,
      states: statesOf(option, 'option', 'option', name),
      value: null,
      children: NO_CHILDREN,
    };
  }

  // --- full mode: the tree, with text runs.

  function visitFull(el, ctx, items) {
    if (isHiddenByMarkup(el) || ctx.skip.has(el)) return;
    const visibility = cachedVisibility(el, ctx);
    if (visibility === SUBTREE_HIDDEN) return;
    const tag = el.localName;
    if (tag === 'br') {
      items.push(BREAK);
      return;
    }
    const shown = visibility === VISIBLE;
    const role = roleOf(el, tag);
    const interactive = isInteractive(el, role);
    if (!shown || !isNodeInFullMode(el, role, tag, interactive, ctx)) {
      if (tag === 'svg' || isRedundantLabel(el, ctx)) return;
      const block = BLOCK_TAGS.has(tag);
      if (block) items.push(BREAK);
      visitChildrenFull(el, tag, ctx, items, shown);
      if (block) items.push(BREAK);
      return;
    }
    const node = describe(el, role, tag, ctx, interactive);
    items.push(node);
    if (tag === 'select') {
      node.children = optionNodes(el, ctx);
    } else if (tag === 'input' && el.list) {
      node.children = datalistNodes(el, ctx);
    } else if (tag === 'iframe' || tag === 'frame') {
      node.children = frameChildrenFull(el, ctx);
    } else if (tag !== 'svg' && tag !== 'textarea') {
      const kids = [];
      visitChildrenFull(el, tag, ctx, kids, true);
      node.children = mergeText(kids);
    }
  }

  // A same-origin frame's content is walked in place; a cross-origin frame's is asked for.
  function frameChildrenFull(frame, ctx) {
    const inner = sameOriginDocument(frame);
    if (inner) {
      const kids = [];
      if (inner.body) visitFull(inner.body, ctx, kids);
      return mergeText(kids);
    }
    if (!ctx.frames || !frame.contentWindow) return NO_CHILDREN;
    return [{ frameMarker: askFrameSnapshot(frame, ctx) }];
  }

  // The frame's agent answers the browser, which puts its lines where the marker is.
  function askFrameSnapshot(frame, ctx) {
    const nonce = askFrame(frame, ctx.table, 'snapshot', {
      interactive: ctx.interactive,
      compact: ctx.compact,
      depth: Number.isFinite(ctx.maxDepth) ? ctx.maxDepth : null,
      max_chars: ctx.maxChars,
      floor: ctx.frameFloor,
    });
    ctx.frames.push(nonce);
    return nonce;
  }

  function isNodeInFullMode(el, role, tag, interactive, ctx) {
    if (interactive) return true;
    if (role === '' || role === 'presentation') return false;
    // Generic boxes and table sections are only structure, unless named.
    if (role === 'generic' || role === 'rowgroup') return !ctx.compact || hasOwnName(el);
    if (role === 'img' && ctx.compact) return !!nameOf(el, role, ctx);
    return true;
  }

  function visitChildrenFull(el, tag, ctx, items, textShown) {
    if (el.shadowRoot || tag === 'slot' || tag === 'details') {
      forEachShownChild(el, tag, (kid) => visitNodeFull(kid, ctx, items, textShown));
      return;
    }
    for (let kid = el.firstChild; kid; kid = kid.nextSibling) visitNodeFull(kid, ctx, items, textShown);
  }

  function visitNodeFull(node, ctx, items, textShown) {
    if (node.nodeType === TEXT_NODE) {
      if (textShown) items.push(node.data);
    } else if (node.nodeType === ELEMENT_NODE) {
      visitFull(node, ctx, items);
    }
  }

  // Joins adjacent text (inline elements were flattened into it) into text runs.
  function mergeText(items) {
    const out = [];
    let buffer = '';
    for (const item of items) {
      if (typeof item === 'string') {
        buffer += item;
        continue;
      }
      pushText(out, buffer);
      buffer = '';
      if (item !== BREAK) out.push(item);
    }
    pushText(out, buffer);
    return out;
  }

  function pushText(out, raw) {
    const text = raw && normalize(raw);
    if (text) out.push({ text });
  }

  const INDENTS = [''];
  function indent(depth) {
    while (INDENTS.length <= depth) INDENTS.push(INDENTS[INDENTS.length - 1] + '  ');
    return INDENTS[depth];
  }

  function renderNode(node, depth, lines, ctx) {
    if (depth > ctx.maxDepth) return;
    let kids = node.children;
    let name = node.name;
    let inlineText = '';
    const onlyText = kids.length > 0 && kids.every((k) => k.text !== undefined);
    if (onlyText && node.nameFromText && !name) {
      const text = kids.map((k) => k.text).join(' ');
      if (text.length <= NAME_MAX) name = text;
      else inlineText = text; // too long for a name: show it all after the colon
      kids = NO_CHILDREN;
    } else if (onlyText && (NAME_FROM_CONTENT.has(node.role) || node.fromContent || node.value !== null)) {
      kids = NO_CHILDREN; // the text is the name or the value already (or the name overrides it)
    } else if (onlyText && kids.length === 1 && !name && node.value === null) {
      inlineText = kids[0].text;
      kids = NO_CHILDREN;
    }
    // A link named after its only child, an image, says the name once.
    if (node.fromContent && node.ref && kids.length === 1 && kids[0].name === name
        && !kids[0].ref && !kids[0].children.length) {
      kids = NO_CHILDREN;
    }
    const line = lineFor(name === node.name ? node : Object.assign({}, node, { name }));
    lines.push(indent(depth) + line + (inlineText ? ': ' + inlineText : ''));
    for (const kid of kids) {
      if (kid.text !== undefined) {
        if (depth + 1 <= ctx.maxDepth) lines.push(indent(depth + 1) + '- text: ' + kid.text);
      } else if (kid.frameMarker) {
        lines.push(indent(depth + 1) + FRAME_MARK + kid.frameMarker);
      } else {
        renderNode(kid, depth + 1, lines, ctx);
      }
    }
  }

  function renderTop(items, lines, ctx) {
    for (const item of mergeText(items)) {
      if (item.text !== undefined) lines.push('- text: ' + item.text);
      else renderNode(item, 0, lines, ctx);
    }
  }

  // Cut at a line boundary and say so, with what to do about it.
  function truncate(lines, maxChars, interactive) {
    let used = 0;
    let kept = 0;
    for (; kept < lines.length; kept++) {
      const cost = lines[kept].length + (kept ? 1 : 0);
      if (used + cost > maxChars) break;
      used += cost;
    }
    if (kept === lines.length) return { text: lines.join('\n'), count: lines.length, truncated: false };
    const hint = interactive ? 'use selector to scope the snapshot' : 'use selector to scope or interactive=true';
    const shown = lines.slice(0, kept);
    shown.push(`[... truncated: ${lines.length - kept} more lines; ${hint}]`);
    return { text: shown.join('\n'), count: shown.length, truncated: true };
  }

  function modalDialog(doc) {
    try {
      return doc.querySelector('dialog:modal');
    } catch (_) {
      return null; // engine without :modal
    }
  }

  function intArg(args, key, fallback, min) {
    const raw = args[key];
    if (raw === undefined || raw === null) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      throw fail('INVALID_PARAMS', `${key} must be an integer >= ${min}`);
    }
    return n;
  }

  function opSnapshot(args, table) {
    const interactive = args.interactive !== false;
    const compact = args.compact !== false;
    const maxChars = intArg(args, 'max_chars', DEFAULT_MAX_CHARS, 1);
    const maxDepth = intArg(args, 'depth', Infinity, 0);
    const doc = scopeOf(table);
    // While a modal dialog is open the rest of the page is inert: show only the dialog.
    const modal = hasTarget(args) ? null : modalDialog(doc);
    const root = hasTarget(args) ? resolveTarget(args, table) : modal || doc.body || doc.documentElement;
    const ctx = newContext(table, {
      interactive, compact, maxDepth, maxChars, modal, visibility: new Map(), skip: new WeakSet(),
      frames: [], frameFloor: Math.max(Number(args.next) || 0, place.floor, table.next),
    });
    const lines = [];
    if (root) {
      if (interactive) {
        if (modal) lines.push(lineFor(describe(modal, 'dialog', 'dialog', ctx, false)));
        visitInteractive(root, ctx, lines);
      } else {
        const items = [];
        visitFull(root, ctx, items);
        renderTop(items, lines, ctx);
      }
    }
    const total = lines.length;
    if (!total) {
      const hint = interactive
        ? '(no interactive elements; try interactive=false to read the page)'
        : '(no visible content)';
      return { text: hint, next: table.next, count: 0, total: 0, truncated: false, document: documentId() };
    }
    const cut = truncate(lines, maxChars, interactive);
    const result = {
      text: cut.text, next: table.next, count: cut.count, total, truncated: cut.truncated, document: documentId(),
    };
    if (ctx.frames.length) Object.assign(result, { frames: ctx.frames, limit: maxChars, interactive });
    return result;
  }

  // ---------------------------------------------------------------------------------------
  // Reading

  function isTextValueElement(el) {
    return el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select';
  }

  function visibleText(el) {
    const text = el.innerText;
    return typeof text === 'string' ? text : el.textContent || '';
  }

  function opText(args, table) {
    const el = resolveTarget(args, table);
    if (el.localName === 'select') return selectedOptionsText(el);
    return isTextValueElement(el) ? el.value : visibleText(el);
  }

  function opHtml(args, table) {
    return resolveTarget(args, table).innerHTML;
  }

  function opAttr(args, table) {
    if (typeof args.attr !== 'string' || !args.attr) {
      throw fail('INVALID_PARAMS', 'attr must be an attribute name, e.g. "href"');
    }
    const el = resolveTarget(args, table);
    return { attr: args.attr, value: el.getAttribute(args.attr) };
  }

  function opValue(args, table) {
    const el = resolveTarget(args, table);
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      return { value: el.value, checked: el.checked };
    }
    if (isTextValueElement(el)) return { value: el.value };
    if (isEditable(el)) return { value: visibleText(el) };
    return { value: null };
  }

  function opPageInfo(args, table) {
    const doc = table.doc;
    return {
      url: location.href,
      title: doc.title,
      ready: doc.readyState,
      scrollX: Math.round(scrollX),
      scrollY: Math.round(scrollY),
      width: innerWidth,
      height: innerHeight,
    };
  }

  function opQuery(args, table) {
    const el = querySelectorChecked(scopeOf(table), args.selector);
    if (!el) return { found: false, visible: false, ref: null, next: table.next };
    const ref = '@' + refText(refOf(table, el));
    return { found: true, visible: isRendered(el), ref, next: table.next };
  }

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
  const GEOMETRY_OPS = new Set(['point', 'focus', 'prepare_fill', 'prepare_type', 'scroll']);
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
    return { __forwarded: askFrame(frame, table, op, args) };
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
      return { __forwarded: askFrame(frame, table, op, args) };
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
    sendToBrowser({ nonce: request.nonce, reply: Object.assign(reply, { origin: location.origin }) });
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

  function hex(bytes) {
    let out = '';
    for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16);
    return out;
  }

  // HMAC-SHA-256 (RFC 2104), in script: WebCrypto is missing on pages not served securely.
  function hmacHex(key, message) {
    const encoder = new TextEncoder();
    let k = encoder.encode(key);
    if (k.length > 64) k = sha256(k);
    const inner = new Uint8Array(64);
    const outer = new Uint8Array(64);
    for (let i = 0; i < 64; i++) {
      inner[i] = (k[i] || 0) ^ 0x36;
      outer[i] = (k[i] || 0) ^ 0x5c;
    }
    const m = encoder.encode(message);
    const first = new Uint8Array(64 + m.length);
    first.set(inner);
    first.set(m, 64);
    const second = new Uint8Array(96);
    second.set(outer);
    second.set(sha256(first), 64);
    return hex(sha256(second));
  }

  const SHA256_K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);

  function sha256(data) {
    const length = data.length;
    const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(data);
    padded[length] = 0x80;
    const bits = length * 8;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(bits / 0x100000000));
    view.setUint32(padded.length - 4, bits >>> 0);
    const h = new Uint32Array([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]);
    const w = new Uint32Array(64);
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    for (let block = 0; block < padded.length; block += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      let [a, b, c, d, e, f, g, k] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
    }
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]);
    return out;
  }

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

  // ---------------------------------------------------------------------------------------
  // Filling and typing: the host types with trusted key events; here the field is prepared.

  // 'text' (select + type), 'editable' (contenteditable), 'set' (picker types), 'select'.
  function fieldKind(el) {
    const tag = el.localName;
    if (tag === 'textarea') return 'text';
    if (tag === 'select') return 'select';
    if (tag === 'input') {
      if (TEXT_INPUT_TYPES.has(el.type)) return 'text';
      if (SET_INPUT_TYPES.has(el.type)) return 'set';
      return null;
    }
    return isEditable(el) ? 'editable' : null;
  }

  // A <label> stands for its control; a node inside an editable region for the region.
  function fieldTarget(args, table) {
    const el = resolveTarget(args, table);
    if (el.localName === 'label' && el.control) return el.control;
    if (fieldKind(el) !== 'editable') return el;
    let host = el;
    while (host.parentElement && isEditable(host.parentElement)) host = host.parentElement;
    return host;
  }

  function notATextField(el, hint) {
    const tag = el.localName;
    const role = roleOf(el, tag) || tag;
    const what = tag === 'input' ? `${role} (<input type=${el.type}>)` : role;
    let advice = hint;
    if (role === 'checkbox' || role === 'radio' || role === 'switch') advice = 'use click to toggle it';
    else if (role === 'button' || role === 'link') advice = 'use click';
    return fail('NOT_INTERACTABLE', `element is a ${what}, not a text field${advice ? '; ' + advice : ''}`);
  }

  function checkEditable(el) {
    if (isDisabled(el, el.localName)) throw fail('NOT_INTERACTABLE', 'element is disabled');
    if (el.readOnly === true) throw fail('NOT_INTERACTABLE', 'element is read-only');
  }

  function focusOrFail(el) {
    el.focus();
    // The element's own document: a field in a frame is active there.
    if (deepActiveElement(el.ownerDocument) !== el) {
      throw fail('NOT_INTERACTABLE', 'element could not take focus (it may be hidden or covered)');
    }
  }

  function selectAllText(el) {
    try {
      el.select();
    } catch (_) {
      // Some input types refuse selection: clear the value instead, so typing replaces it.
      el.value = '';
      dispatchValueEvents(el);
    }
  }

  function selectEditableContents(el, collapseToEnd) {
    const selection = el.ownerDocument.getSelection();
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    if (collapseToEnd) range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function requireValue(args) {
    if (args.value === undefined || args.value === null) {
      throw fail('INVALID_PARAMS', 'value is required');
    }
    return String(args.value);
  }

  function setPickerValue(el, value) {
    el.focus();
    el.value = value;
    if (value !== '' && el.value === '') {
      throw fail('INVALID_PARAMS',
        `"${value}" is not a valid value for <input type=${el.type}>; expected ${VALUE_FORMATS[el.type] || 'another format'}`);
    }
    dispatchValueEvents(el);
    return { mode: 'set', value: el.value };
  }

  function findOption(select, value) {
    const options = Array.from(select.options);
    const wanted = normalize(value);
    return options.find((o) => o.value === value)
      || options.find((o) => normalize(o.text) === wanted || normalize(o.label) === wanted)
      || options.find((o) => normalize(o.text).toLowerCase() === wanted.toLowerCase());
  }

  function chooseOption(select, value) {
    const option = findOption(select, value);
    if (!option) {
      const names = Array.from(select.options).slice(0, 20).map((o) => `"${normalize(o.text)}"`);
      throw fail('ELEMENT_NOT_FOUND', `no option "${value}" in this select; options: ${names.join(', ')}`);
    }
    if (option.disabled) throw fail('NOT_INTERACTABLE', `option "${value}" is disabled`);
    select.focus();
    if (select.multiple) {
      for (const o of select.options) o.selected = o === option;
    } else {
      select.selectedIndex = option.index;
    }
    dispatchValueEvents(select);
    return { mode: 'set', value: select.value, text: normalize(option.text) };
  }

  function opPrepareFill(args, table) {
    const el = fieldTarget(args, table);
    const kind = fieldKind(el);
    if (!kind) throw notATextField(el, '');
    checkEditable(el);
    switch (kind) {
      case 'text':
        focusOrFail(el);
        selectAllText(el);
        return { mode: 'text', empty: el.value === '' };
      case 'editable':
        focusOrFail(el);
        selectEditableContents(el, false);
        return { mode: 'text' };
      case 'set':
        return setPickerValue(el, requireValue(args));
      default:
        return chooseOption(el, requireValue(args));
    }
  }

  function opPrepareType(args, table) {
    const el = fieldTarget(args, table);
    const kind = fieldKind(el);
    if (kind === 'set') {
      throw fail('NOT_INTERACTABLE',
        `element is a <input type=${el.type}>, not a text field; use fill with a value like ${VALUE_FORMATS[el.type]}`);
    }
    if (kind === 'select') throw notATextField(el, "use fill with the option's text or value");
    if (!kind) throw notATextField(el, '');
    checkEditable(el);
    focusOrFail(el);
    if (kind === 'editable') {
      selectEditableContents(el, true);
    } else {
      try {
        el.setSelectionRange(el.value.length, el.value.length);
      } catch (_) {
        // email and number inputs have no selection API; the caret stays where focus put it.
      }
    }
    return { mode: 'text' };
  }

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

  // ---------------------------------------------------------------------------------------
  // Finding elements by what a person sees: role and name, text, label, placeholder...

  // Every element of the document, its open shadow roots and same-origin frames, in order.
  function allElements(root, out) {
    for (const el of root.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) allElements(el.shadowRoot, out);
      if (el.localName === 'iframe' || el.localName === 'frame') {
        const inner = sameOriginDocument(el);
        if (inner) allElements(inner, out);
      }
    }
    return out;
  }

  function textMatches(actual, wanted, exact) {
    const a = normalize(actual || '');
    const w = normalize(String(wanted));
    if (exact) return a === w;
    return a.toLowerCase().includes(w.toLowerCase());
  }

  function requireString(args, key) {
    const value = args[key];
    if (typeof value !== 'string' || value.trim() === '') {
      throw fail('INVALID_PARAMS', `${key} must be a non-empty string`);
    }
    return value;
  }

  // The innermost rendered elements whose visible text matches (not every ancestor too).
  function byText(all, text, exact) {
    const hits = all.filter((el) => !NO_TEXT_TAGS.has(el.localName) && textMatches(el.innerText, text, exact));
    const set = new Set(hits);
    return hits.filter((el) => !Array.from(el.children).some((child) => set.has(child)));
  }

  const NO_TEXT_TAGS = new Set(['html', 'head', 'body', 'script', 'style', 'template', 'noscript']);

  function byAttribute(all, name, wanted, exact) {
    return all.filter((el) => el.hasAttribute(name) && textMatches(el.getAttribute(name), wanted, exact));
  }

  function candidates(args, table) {
    const doc = scopeOf(table);
    const exact = args.exact === true;
    switch (args.by) {
      case 'role': {
        const role = requireString(args, 'role').trim().toLowerCase();
        const ctx = newContext(table);
        const all = allElements(doc, []).filter((el) => roleOf(el, el.localName) === role);
        if (args.name == null || args.name === '') return all;
        return all.filter((el) => textMatches(nameOf(el, role, ctx), args.name, exact));
      }
      case 'text':
        return byText(allElements(doc, []), requireString(args, 'text'), exact);
      case 'label': {
        const label = requireString(args, 'label');
        const ctx = newContext(table);
        return allElements(doc, []).filter((el) => {
          const role = roleOf(el, el.localName);
          if (!isInteractive(el, role) && !el.hasAttribute('aria-label') && labelledByIds(el) === null) return false;
          const labelled = labelsText(el, ctx) || el.getAttribute('aria-label') || labelledByText(el, ctx);
          return textMatches(labelled, label, exact);
        });
      }
      case 'placeholder':
        return byAttribute(allElements(doc, []), 'placeholder', requireString(args, 'placeholder'), exact);
      case 'alt':
        return byAttribute(allElements(doc, []), 'alt', requireString(args, 'alt'), exact);
      case 'title':
        return byAttribute(allElements(doc, []), 'title', requireString(args, 'title'), exact);
      case 'testid':
        return byAttribute(allElements(doc, []), 'data-testid', requireString(args, 'testid'), true);
      case 'first':
      case 'last':
      case 'nth':
        return selectorMatches(doc, requireString(args, 'selector'));
      default:
        throw fail('INVALID_PARAMS', `unknown find kind ${String(args.by)}`);
    }
  }

  function selectorMatches(doc, selector) {
    try {
      return Array.from(doc.querySelectorAll(selector));
    } catch (e) {
      throw fail('INVALID_PARAMS', `invalid CSS selector: ${selector} (${e && e.message})`);
    }
  }

  // A CSS selector that finds this element and no other (shadow roots aside).
  function uniqueSelector(el) {
    const doc = el.ownerDocument;
    const unique = (sel) => {
      try {
        return doc.querySelectorAll(sel).length === 1 && doc.querySelector(sel) === el;
      } catch (_) {
        return false;
      }
    };
    if (el.id && unique('#' + CSS.escape(el.id))) return '#' + CSS.escape(el.id);
    const testid = el.getAttribute('data-testid');
    if (testid && unique(`[data-testid="${CSS.escape(testid)}"]`)) return `[data-testid="${CSS.escape(testid)}"]`;
    // Climb from the element, one step per ancestor, until the path is unique.
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && node !== doc.documentElement; node = node.parentElement) {
      if (node !== el && node.id && unique('#' + CSS.escape(node.id) + ' > ' + parts.join(' > '))) {
        return '#' + CSS.escape(node.id) + ' > ' + parts.join(' > ');
      }
      let index = 1;
      let alone = true;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        if (sib.localName === node.localName) index += 1;
      }
      for (let sib = node.nextElementSibling; sib && alone; sib = sib.nextElementSibling) {
        if (sib.localName === node.localName) alone = false;
      }
      parts.unshift(index === 1 && alone ? node.localName : `${node.localName}:nth-of-type(${index})`);
      const sel = parts.join(' > ');
      if (unique(sel)) return sel;
    }
    return 'html > ' + parts.join(' > ');
  }

  function hasCrossOriginFrame(doc) {
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      if (frame.contentWindow && !sameOriginDocument(frame)) return true;
    }
    return false;
  }

  function found(el, table, ctx, count) {
    const role = roleOf(el, el.localName);
    const result = {
      ref: '@' + refText(refOf(table, el)),
      role: role || el.localName,
      name: clamp(nameOf(el, role, ctx), 100),
      selector: uniqueSelector(el),
      count,
      next: table.next,
    };
    // Inside a same-origin frame the selector holds in the frame's document: say which.
    const chain = frameChain(el.ownerDocument, table.doc);
    if (chain && chain.length) result.frame = chain.reverse().map(uniqueSelector).join(' >>> ');
    return result;
  }

  function opFind(args, table) {
    const ctx = newContext(table);
    const all = candidates(args, table);
    const shown = all.filter((el) => isRendered(el));
    const matches = shown.length ? shown : all;
    const what = args.what || args.by;
    if (!matches.length) {
      const frames = hasCrossOriginFrame(scopeOf(table))
        ? ' (cross-origin frames are not searched: their elements are in the snapshot)'
        : '';
      throw fail('ELEMENT_NOT_FOUND', `nothing on the page matches ${what}${frames}; take a snapshot to see what is there`);
    }
    if (args.by === 'first') return found(matches[0], table, ctx, matches.length);
    if (args.by === 'last') return found(matches[matches.length - 1], table, ctx, matches.length);
    if (args.by === 'nth') {
      const n = Number(args.n);
      if (!Number.isInteger(n) || n < 0) throw fail('INVALID_PARAMS', 'n must be a whole number from 0');
      if (n >= matches.length) {
        throw fail('ELEMENT_NOT_FOUND', `only ${matches.length} elements match ${args.selector} (n counts from 0)`);
      }
      return found(matches[n], table, ctx, matches.length);
    }
    if (matches.length > 1) {
      // Described by selector, not ref: refs handed out in an error would go unrecorded.
      const listed = matches.slice(0, 5).map((el) => {
        const role = roleOf(el, el.localName) || el.localName;
        return `${role} "${quote(clamp(nameOf(el, role, ctx), 60))}" (${uniqueSelector(el)})`;
      });
      throw fail(
        'INVALID_PARAMS',
        `${matches.length} elements match ${what}: ${listed.join(', ')}${matches.length > 5 ? ', ...' : ''}; ` +
          'be more specific (name, exact), or use find_nth or find_first with a selector',
      );
    }
    return found(matches[0], table, ctx, 1);
  }

  // ---------------------------------------------------------------------------------------
  // Element state: value, count, box, styles, visibility, enabled, checked.

  const DEFAULT_STYLES = [
    'display', 'visibility', 'opacity', 'position', 'z-index', 'width', 'height', 'color',
    'background-color', 'font-family', 'font-size', 'font-weight', 'text-decoration-line',
    'margin', 'padding', 'border', 'overflow', 'cursor', 'pointer-events', 'transform',
  ];

  function opState(args, table) {
    switch (args.what) {
      case 'value': return stateValue(resolveTarget(args, table));
      case 'count': return { count: selectorMatches(scopeOf(table), requireString(args, 'selector')).length };
      case 'box': return stateBox(resolveTarget(args, table), table);
      case 'styles': return stateStyles(resolveTarget(args, table), args.properties);
      case 'visible': return visibilityReport(resolveTarget(args, table));
      case 'enabled': return enabledReport(resolveTarget(args, table));
      case 'checked': return { checked: checkedValue(checkTarget(resolveTarget(args, table))) };
      default: throw fail('INTERNAL', `unknown state ${String(args.what)}`);
    }
  }

  function stateValue(el) {
    const tag = el.localName;
    if (tag === 'input' && el.type === 'password') {
      // Never echo a secret into the model's context or logs; the length is enough to check.
      return { value: '•'.repeat(Math.min(el.value.length, 16)), masked: true, length: el.value.length };
    }
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      return { value: el.value, checked: el.checked };
    }
    if (tag === 'input' && el.type === 'file') {
      const files = Array.from(el.files || [], (f) => ({ name: f.name, size: f.size, type: f.type }));
      return { value: el.value, files };
    }
    if (tag === 'select') {
      const chosen = Array.from(el.selectedOptions);
      if (el.multiple) return { value: chosen.map((o) => o.value), text: chosen.map((o) => normalize(o.text)) };
      return { value: el.value, text: chosen.length ? normalize(chosen[0].text) : '' };
    }
    if (isTextValueElement(el) || tag === 'output' || tag === 'progress' || tag === 'meter') {
      return { value: String(el.value) };
    }
    if (isEditable(el)) return { value: visibleText(el) };
    const role = roleOf(el, tag);
    if (RANGE_ROLES.has(role) || role === 'textbox' || role === 'combobox') {
      return { value: el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || el.textContent.trim() };
    }
    throw fail('INVALID_PARAMS',
      `element is a <${tag}>, which holds no value; use get_text for its text or get_attr for an attribute`);
  }

  // In CSS pixels: of the top viewport, and of the page (the viewport plus its scroll).
  function stateBox(el, table) {
    const rect = el.getBoundingClientRect();
    const chain = frameChain(el.ownerDocument, table.doc) || [];
    const corner = toTopPoint({ x: rect.left, y: rect.top }, chain);
    const x = corner.x + place.x;
    const y = corner.y + place.y;
    const round = (v) => Math.round(v * 100) / 100;
    const view = { width: place.vw || innerWidth, height: place.vh || innerHeight };
    const inView = rect.width > 0 && rect.height > 0 && x < view.width && y < view.height
      && x + rect.width > 0 && y + rect.height > 0;
    return {
      x: round(x),
      y: round(y),
      width: round(rect.width),
      height: round(rect.height),
      page_x: round(x + (place === TOP_PLACE ? scrollX : 0)),
      page_y: round(y + (place === TOP_PLACE ? scrollY : 0)),
      in_viewport: inView,
    };
  }

  function stateStyles(el, properties) {
    let names = DEFAULT_STYLES;
    if (properties != null) {
      if (!Array.isArray(properties) || !properties.every((p) => typeof p === 'string' && p.trim())) {
        throw fail('INVALID_PARAMS', 'properties must be a list of CSS property names, e.g. ["color", "display"]');
      }
      names = properties.map((p) => p.trim());
    }
    const style = getComputedStyle(el);
    const styles = {};
    for (const name of names) styles[name] = style.getPropertyValue(name);
    return { styles };
  }

  // Whether a person could see the element, and if not, why.
  function visibilityReport(el) {
    const hidden = (reason) => ({ visible: false, reason });
    if (!el.isConnected) return hidden('not in the document');
    if (el.closest('[hidden]') && !isRendered(el)) return hidden('hidden attribute');
    const style = getComputedStyle(el);
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility()) return hidden('not rendered (display: none here or on an ancestor, or content-visibility)');
      if (!el.checkVisibility({ visibilityProperty: true })) return hidden(`visibility: ${style.visibility}`);
      if (!el.checkVisibility({ opacityProperty: true })) return hidden('opacity: 0 (here or on an ancestor)');
    } else if (style.display === 'none') {
      return hidden('display: none');
    } else if (style.visibility !== 'visible') {
      return hidden(`visibility: ${style.visibility}`);
    }
    // A box of no size shows nothing when it clips its content; otherwise content may spill out.
    const own = el.getBoundingClientRect();
    const clipsOwn = style.overflowX !== 'visible' || style.overflowY !== 'visible';
    const rect = (own.width === 0 || own.height === 0) && clipsOwn ? null : sizedRectOf(el);
    if (!rect) return hidden('zero size');
    if (el.closest('[inert]')) return hidden('inert');
    const modal = modalDialog(el.ownerDocument);
    if (modal && !composedContains(modal, el)) return hidden('behind a modal dialog');
    const clip = clippedBy(el, rect);
    if (clip) return hidden(clip);
    return { visible: true };
  }

  // Clipped to nothing: the screen-reader-only pattern, or cut off by an ancestor that
  // hides overflow, or placed where the page cannot scroll (left: -9999px).
  function clippedBy(el, rect) {
    const style = getComputedStyle(el);
    if (/^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(style.clip) || style.clipPath === 'inset(50%)') {
      return 'clipped to nothing (clip)';
    }
    if (rect.right + scrollX <= 0 || rect.bottom + scrollY <= 0) return 'off-screen (placed where the page cannot scroll)';
    for (let parent = el.parentElement; parent && parent !== el.ownerDocument.body; parent = parent.parentElement) {
      const s = getComputedStyle(parent);
      const clips = (v) => v === 'hidden' || v === 'clip';
      if (!clips(s.overflowX) && !clips(s.overflowY)) continue;
      const box = parent.getBoundingClientRect();
      const outX = clips(s.overflowX) && (rect.right <= box.left || rect.left >= box.right);
      const outY = clips(s.overflowY) && (rect.bottom <= box.top || rect.top >= box.bottom);
      if (outX || outY) return `clipped by ${shortDescription(parent)} (overflow: hidden)`;
    }
    return null;
  }

  function enabledReport(el) {
    const tag = el.localName;
    if (FORM_CONTROL_TAGS.has(tag) && el.matches(':disabled')) {
      return { enabled: false, reason: el.disabled ? 'disabled attribute' : 'inside a disabled fieldset' };
    }
    if (el.getAttribute('aria-disabled') === 'true') return { enabled: false, reason: 'aria-disabled' };
    if (el.closest('[inert]')) return { enabled: false, reason: 'inert' };
    return { enabled: true };
  }


  // The control that check/uncheck act on: a label stands for its control.
  function checkTarget(el) {
    const control = el.localName === 'label' && el.control ? el.control : el;
    const role = roleOf(control, control.localName);
    if (CHECKABLE_ROLES.has(role) || role === 'button' && control.hasAttribute('aria-pressed')) return control;
    throw fail('INVALID_PARAMS',
      `element is ${role || control.localName}, not a checkbox, radio button or switch`);
  }

  function checkedValue(el) {
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.indeterminate) return 'mixed';
      return el.checked;
    }
    const aria = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
    if (aria === 'mixed') return 'mixed';
    return aria === 'true';
  }

  // Before check/uncheck click: the control, its state, and whether it is a radio.
  function opCheckable(args, table) {
    const el = checkTarget(resolveTarget(args, table));
    const role = roleOf(el, el.localName);
    return {
      checked: checkedValue(el),
      radio: role === 'radio' || role === 'menuitemradio',
      ref: '@' + refText(refOf(table, el)),
    };
  }

  function opScrollIntoView(args, table) {
    const el = resolveTarget(args, table);
    if (!sizedRectOf(el)) throw fail('NOT_INTERACTABLE', 'element is hidden (not displayed or zero size)');
    scrollIntoViewInstant(el);
    return stateBox(el, table);
  }

  // select: options by value or visible text, several for a multiple select.
  // select: by the select and option values or texts, or by an option's own ref.
  function opSelect(args, table) {
    const target = fieldTarget(args, table);
    const byOption = target.localName === 'option' && target.closest('select');
    const el = byOption || target;
    if (el.localName !== 'select') {
      throw fail('INVALID_PARAMS', `element is a <${el.localName}>, not a <select>; use click for custom drop-downs`);
    }
    if (byOption) {
      if (args.values !== undefined && args.values !== null) {
        throw fail('INVALID_PARAMS', 'the ref is an option already: give no value, or the select\'s ref with values');
      }
      return chooseOptions(el, [target]);
    }
    const values = Array.isArray(args.values) ? args.values : [args.values];
    if (!values.length || !values.every((v) => typeof v === 'string')) {
      throw fail('INVALID_PARAMS', 'values must be an option value or text, or a list of them');
    }
    if (values.length > 1 && !el.multiple) {
      throw fail('INVALID_PARAMS', `this select takes one option, and ${values.length} were given`);
    }
    const options = values.map((v) => {
      const option = findOption(el, v);
      if (!option) {
        const names = Array.from(el.options).slice(0, 20).map((o) => `"${normalize(o.text)}"`);
        throw fail('ELEMENT_NOT_FOUND', `no option "${v}" in this select; options: ${names.join(', ')}`);
      }
      return option;
    });
    return chooseOptions(el, options);
  }

  // Makes `options` the select's choice (for a multiple select, its whole choice)
  // and fires input and change, as a person's choice would.
  function chooseOptions(el, options) {
    checkEditable(el);
    for (const option of options) {
      if (option.disabled || (option.parentElement.localName === 'optgroup' && option.parentElement.disabled)) {
        throw fail('NOT_INTERACTABLE', `option "${normalize(option.text)}" is disabled`);
      }
    }
    el.focus();
    for (const o of el.options) o.selected = options.includes(o);
    dispatchValueEvents(el);
    const chosen = Array.from(el.selectedOptions);
    return {
      value: el.multiple ? chosen.map((o) => o.value) : el.value,
      text: el.multiple ? chosen.map((o) => normalize(o.text)) : normalize(chosen[0] ? chosen[0].text : ''),
    };
  }

  // wait_for_text: whether the page's visible text (its same-origin frames too) has it.
  function opHasText(args, table) {
    const wanted = normalize(requireString(args, 'text'));
    const texts = [];
    const collect = (doc) => {
      if (doc.body) texts.push(normalize(visibleText(doc.body)));
      for (const frame of doc.querySelectorAll('iframe, frame')) {
        const inner = sameOriginDocument(frame);
        if (inner) collect(inner);
      }
    };
    collect(scopeOf(table));
    const found = texts.some((t) => t.includes(wanted));
    const all = texts.join(' ');
    return { found, length: all.length, start: clamp(all, 80) };
  }

  // The focused element, for keyboard tools: what it is and what it holds now.
  function opFocused(args, table) {
    const scope = scopeOf(table);
    const el = deepActiveElement(scope);
    if (!el || el === scope.body || el === scope.documentElement) return { focused: null };
    let inner = el;
    while ((inner.localName === 'iframe' || inner.localName === 'frame') && sameOriginDocument(inner)) {
      const next = deepActiveElement(sameOriginDocument(inner));
      if (!next || next === next.ownerDocument.body) break;
      inner = next;
    }
    const result = { focused: shortDescription(inner) };
    if (isTextValueElement(inner) || isEditable(inner)) result.value = stateValue(inner).value;
    return result;
  }

  // ---------------------------------------------------------------------------------------
  // Web storage of the page's origin: local or session.

  function opStorage(args, table) {
    const area = args.area === 'session' ? 'sessionStorage' : 'localStorage';
    const where = scopeOf(table).location;
    const origin = where.origin === 'null' ? where.href : where.origin;
    let store;
    try {
      store = scopeOf(table).defaultView[area];
    } catch (e) {
      throw fail('UNSUPPORTED', `this page (${origin}) has no ${area}: ${e && e.message}`);
    }
    if (!store) throw fail('UNSUPPORTED', `this page (${origin}) has no ${area}`);
    const key = () => {
      if (typeof args.key !== 'string') throw fail('INVALID_PARAMS', 'key must be a string');
      return args.key;
    };
    switch (args.action) {
      case 'get': {
        const items = {};
        for (let i = 0; i < store.length; i++) {
          const k = store.key(i);
          items[k] = store.getItem(k);
        }
        return { origin, count: store.length, items };
      }
      case 'get_key':
        return { origin, key: key(), value: store.getItem(key()) };
      case 'set':
        try {
          store.setItem(key(), String(args.value));
        } catch (e) {
          throw fail('INVALID_PARAMS', `${area} refused the value: ${e && e.message}`);
        }
        return { origin, key: key(), value: store.getItem(key()) };
      case 'clear': {
        const cleared = store.length;
        store.clear();
        return { origin, cleared };
      }
      default:
        throw fail('INTERNAL', `unknown storage action ${String(args.action)}`);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Highlight: an outline a person (or a screenshot) sees, removed after a while.

  const highlights = new WeakMap();

  function opHighlight(args, table) {
    const el = resolveTarget(args, table);
    const ms = intArg(args, 'ms', 2000, 0);
    const rect = sizedRectOf(el);
    if (!rect) throw fail('NOT_INTERACTABLE', 'element is hidden (not displayed or zero size)');
    const previous = highlights.get(el);
    if (previous) clearTimeout(previous.timer);
    const saved = previous ? previous.saved : {
      outline: el.style.getPropertyValue('outline'),
      priority: el.style.getPropertyPriority('outline'),
      offset: el.style.getPropertyValue('outline-offset'),
    };
    el.style.setProperty('outline', '3px solid rgb(230, 40, 40)', 'important');
    el.style.setProperty('outline-offset', '2px');
    const restore = () => {
      el.style.setProperty('outline', saved.outline, saved.priority);
      el.style.setProperty('outline-offset', saved.offset);
      highlights.delete(el);
    };
    const timer = ms > 0 ? setTimeout(restore, ms) : 0;
    highlights.set(el, { saved, timer });
    return Object.assign({ highlighted: true, ms }, stateBox(el, table));
  }

  // ---------------------------------------------------------------------------------------
  // Files and annotations

  // upload: the file input a ref, selector or label names, and what it takes.
  function opFileInput(args, table) {
    let el = resolveTarget(args, table);
    if (el.localName === 'label' && el.control) el = el.control;
    if (el.localName !== 'input' || el.type !== 'file') {
      throw fail('INVALID_PARAMS', `element is ${shortDescription(el)}, not an <input type=file>`);
    }
    if (isDisabled(el, 'input')) throw fail('NOT_INTERACTABLE', 'the file input is disabled');
    return { ref: '@' + refText(refOf(table, el)), multiple: el.multiple, accept: el.accept || null };
  }

  // screenshot_annotated: each interactive element in view, with its ref and box.
  function opAnnotations(args, table) {
    const ctx = newContext(table, {
      interactive: true, compact: true, maxDepth: Infinity, visibility: new Map(), skip: new WeakSet(),
      marks: [],
    });
    const root = modalDialog(scopeOf(table)) || scopeOf(table).body;
    if (root) visitInteractive(root, ctx, []);
    const view = { width: innerWidth, height: innerHeight };
    const marks = [];
    for (const { el, node } of ctx.marks) {
      const rect = el.getBoundingClientRect();
      if (rect.width <= 0 || rect.height <= 0) continue;
      const chain = frameChain(el.ownerDocument, table.doc) || [];
      const corner = toTopPoint({ x: rect.left, y: rect.top }, chain);
      if (corner.x >= view.width || corner.y >= view.height) continue;
      if (corner.x + rect.width <= 0 || corner.y + rect.height <= 0) continue;
      marks.push({
        ref: refText(node.ref),
        line: lineFor(node),
        x: corner.x,
        y: corner.y,
        width: rect.width,
        height: rect.height,
      });
    }
    return { marks, next: table.next };
  }

  // frame_switch: the frame a ref or selector names, and what it shows.
  function opFrameTarget(args, table) {
    const frame = resolveTarget(args, table);
    if (frame.localName !== 'iframe' && frame.localName !== 'frame') {
      throw fail('INVALID_PARAMS', `element is ${shortDescription(frame)}, not an iframe or frame`);
    }
    if (place !== TOP_PLACE) {
      throw fail('UNSUPPORTED',
        'a frame inside a cross-origin frame cannot be chosen; use the refs its elements have in a snapshot');
    }
    const inner = sameOriginDocument(frame);
    return {
      ref: '@' + refText(refOf(table, frame)),
      url: inner ? inner.location.href : frame.src || null,
      same_origin: !!inner,
      name: nameOf(frame, 'iframe', newContext(table)),
    };
  }

  // ---------------------------------------------------------------------------------------
  // Entry point

  const OPS = new Map([
    ['snapshot', opSnapshot],
    ['text', opText],
    ['html', opHtml],
    ['attr', opAttr],
    ['point', opPoint],
    ['focus', opFocus],
    ['prepare_fill', opPrepareFill],
    ['prepare_type', opPrepareType],
    ['value', opValue],
    ['scroll', opScroll],
    ['query', opQuery],
    ['find', opFind],
    ['page_info', opPageInfo],
    ['state', opState],
    ['checkable', opCheckable],
    ['scroll_into_view', opScrollIntoView],
    ['select', opSelect],
    ['has_text', opHasText],
    ['focused', opFocused],
    ['storage', opStorage],
    ['highlight', opHighlight],
    ['file_input', opFileInput],
    ['annotations', opAnnotations],
    ['frame_target', opFrameTarget],
  ]);

  function errorResult(op, error) {
    if (error instanceof AgentError) return { ok: false, code: error.code, message: error.message };
    let detail;
    try {
      detail = error && error.name ? `${error.name}: ${error.message}` : String(error);
    } catch (_) {
      detail = 'unknown error'; // an exotic thrown value that cannot even be printed
    }
    return { ok: false, code: 'JS_ERROR', message: `agent operation ${String(op)} failed: ${detail}` };
  }

  function call(op, args) {
    return JSON.stringify(run(op, args));
  }

  function run(op, args) {
    try {
      const handler = OPS.get(op);
      if (!handler) throw fail('INTERNAL', `the agent library has no operation "${op}"`);
      let params = typeof args === 'string' ? JSON.parse(args) : args;
      if (params === null || typeof params !== 'object') params = {};
      const table = tableFor(document);
      applyFloor(table, params.floor);
      const routed = frameRefOf(params.ref);
      let value;
      if (routed) value = forwardToFrame(op, params, routed, table);
      else if (params.frame) value = inFrame(op, params, table, handler);
      else value = handler(params, table);
      return { ok: true, value: value === undefined ? null : value };
    } catch (error) {
      return errorResult(op, error);
    }
  }

  Object.defineProperty(globalThis, '__sovereignAgent', {
    value: Object.freeze({ call, version: 1 }),
    enumerable: false,
    writable: false,
    configurable: false,
  });
})();
