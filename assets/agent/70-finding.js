  // Finding elements by role and name, text, label, placeholder, alt, title or test id.

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

  // A CSS selector that finds this element and no other, as selectors are matched
  // (into open shadow roots: an element in one gets a path from its shadow root).
  function uniqueSelector(el) {
    const doc = el.ownerDocument;
    const roots = [doc, ...openShadowRoots(doc)];
    const unique = (sel) => {
      try {
        let count = 0;
        for (const root of roots) {
          const all = root.querySelectorAll(sel);
          count += all.length;
          if (count > 1 || (all.length === 1 && all[0] !== el)) return false;
        }
        return count === 1;
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
    return el.getRootNode() === doc ? 'html > ' + parts.join(' > ') : parts.join(' > ');
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
      ref: refText(refOf(table, el)),
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

  // By position (first, last, nth): every match of the selector, in document order.
  const BY_POSITION = new Set(['first', 'last', 'nth']);

  function opFind(args, table) {
    const ctx = newContext(table);
    const all = candidates(args, table);
    const shown = BY_POSITION.has(args.by) ? all : all.filter((el) => isRendered(el));
    const matches = shown.length ? shown : all;
    const what = args.what || args.by;
    if (!matches.length) {
      const frames = hasCrossOriginFrame(scopeOf(table))
        ? ' (cross-origin frames are not searched: their elements are in the snapshot)'
        : '';
      throw fail('ELEMENT_NOT_FOUND', `nothing on the page matches ${what}${frames}; take a snapshot to see what is there`);
    }
    if (BY_POSITION.has(args.by)) {
      let n = args.by === 'first' ? 0 : matches.length - 1;
      if (args.by === 'nth') {
        n = Number(args.n);
        if (!Number.isInteger(n) || n < 0) throw fail('INVALID_PARAMS', 'n must be a whole number from 0');
        if (n >= matches.length) {
          throw fail('ELEMENT_NOT_FOUND', `only ${matches.length} elements match ${args.selector} (n counts from 0)`);
        }
      }
      return Object.assign(found(matches[n], table, ctx, matches.length), { visible: isRendered(matches[n]) });
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
