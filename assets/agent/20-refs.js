  // Refs: the per-document ref tables, and resolving a ref or selector to its element.

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
      table = { doc, next: 1, byNumber: new Map(), byElement: new WeakMap(), pinned: new Map(), pruneAt: 4096 };
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
    pin(table, n, el);
    return n;
  }

  // The elements of the refs handed out last are held, not only weakly: a list the page
  // renders anew drops the old nodes, and a collected one could no longer lead to the
  // equal node now in its place (Playwright keeps its last snapshot's elements the same
  // way). Bounded: the oldest pin goes first, then only a weak reference is left.
  const PINNED_MAX = 10000;

  function pin(table, n, el) {
    table.pinned.delete(n);
    table.pinned.set(n, el);
    if (table.pinned.size > PINNED_MAX) table.pinned.delete(table.pinned.keys().next().value);
  }

  // Drop entries whose element was collected; the counter alone remembers they were issued.
  function pruneRefs(table) {
    for (const [n, weak] of table.byNumber) {
      if (!weak.deref()) table.byNumber.delete(n);
    }
    table.pruneAt = Math.max(4096, table.byNumber.size * 2);
  }

  function parseRef(ref) {
    if (typeof ref !== 'string') throw fail('INVALID_PARAMS', 'ref must look like e12, as a snapshot prints it');
    const m = /^\[?(?:ref=)?@?e(\d{1,9})\]?$/.exec(ref.trim());
    if (!m) throw fail('INVALID_PARAMS', 'ref must look like e12, as a snapshot prints it');
    return Number(m[1]);
  }

  function resolveRef(table, ref) {
    const n = parseRef(ref);
    const weak = table.byNumber.get(n);
    const el = weak && weak.deref();
    if (el && el.isConnected && (el.ownerDocument === table.doc || frameChain(el.ownerDocument, table.doc))) return el;
    const again = el && rendered(table, el);
    if (again) {
      table.byNumber.set(n, makeWeak(again));
      if (!table.byElement.has(again)) table.byElement.set(again, n);
      if (table.pinned.has(n)) table.pinned.set(n, again);
      return again;
    }
    if (n < table.next) {
      throw fail('STALE_REF', `ref ${refText(n)} no longer exists (the page changed); take a new snapshot`);
    }
    throw fail('ELEMENT_NOT_FOUND', `unknown ref ${refText(n)}: no element has it; take a snapshot to get refs`);
  }

  // A framework that renders a list anew replaces its nodes with equal ones: a ref whose
  // element left the document stands for the one element now there that is the same
  // subtree rendered again: the removed subtree's root and the element (tag, the
  // attributes that name them, their text) and the path between them all alike. A row
  // deleted leaves no such element (its text is gone), so its ref stays stale.
  function rendered(table, gone) {
    const doc = gone.ownerDocument;
    if (!doc || !doc.defaultView || (doc !== table.doc && !frameChain(doc, table.doc))) return null;
    const path = [];
    let root = gone;
    while (root.parentElement) {
      path.push(indexAmongSiblings(root));
      root = root.parentElement;
    }
    if (root.parentNode) return null; // still in a document (a shadow tree): not a re-render
    const [print, rootPrint] = [fingerprint(gone), fingerprint(root)];
    let found = null;
    for (const el of doc.getElementsByTagName(gone.localName)) {
      if (fingerprint(el) !== print) continue;
      let up = el;
      let same = true;
      for (const index of path) {
        if (!up.parentElement || indexAmongSiblings(up) !== index) {
          same = false;
          break;
        }
        up = up.parentElement;
      }
      if (!same || fingerprint(up) !== rootPrint) continue;
      if (found) return null;
      found = el;
    }
    return found;
  }

  function indexAmongSiblings(el) {
    let i = 0;
    for (let n = el.previousElementSibling; n; n = n.previousElementSibling) i += 1;
    return i;
  }

  const FINGERPRINT_ATTRIBUTES = ['type', 'name', 'role', 'aria-label', 'href', 'placeholder', 'title', 'value'];
  const FINGERPRINT_TEXT_MAX = 200;

  function fingerprint(el) {
    const parts = [el.localName];
    for (const a of FINGERPRINT_ATTRIBUTES) parts.push(el.getAttribute(a) || '');
    parts.push(String(el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, FINGERPRINT_TEXT_MAX));
    return parts.join('\u0000');
  }

  // Selectors reach into open shadow roots, as the snapshot and Playwright's CSS do: the
  // selector is matched in the document, then in each open shadow root (a combinator does
  // not cross a shadow boundary).
  function querySelectorChecked(root, selector) {
    if (typeof selector !== 'string' || selector.trim() === '') {
      throw fail('INVALID_PARAMS', 'selector must be a non-empty CSS selector string');
    }
    let el;
    try {
      el = root.querySelector(selector);
    } catch (e) {
      throw fail('INVALID_PARAMS', `invalid CSS selector: ${selector} (${e && e.message})`);
    }
    if (el) return el;
    for (const shadow of openShadowRoots(root)) {
      el = shadow.querySelector(selector);
      if (el) return el;
    }
    return null;
  }

  // Every element `selector` matches in `root` and in its open shadow roots.
  function selectorMatches(root, selector) {
    let all;
    try {
      all = Array.from(root.querySelectorAll(selector));
    } catch (e) {
      throw fail('INVALID_PARAMS', `invalid CSS selector: ${selector} (${e && e.message})`);
    }
    for (const shadow of openShadowRoots(root)) all.push(...shadow.querySelectorAll(selector));
    return all;
  }

  // The open shadow roots under `root`, theirs too, in document order.
  function openShadowRoots(root, out = []) {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        out.push(el.shadowRoot);
        openShadowRoots(el.shadowRoot, out);
      }
    }
    return out;
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
    throw fail('INVALID_PARAMS', 'give a target: ref (like e12, from a snapshot) or selector (CSS)');
  }
