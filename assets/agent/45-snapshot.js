  // Snapshot: the interactive and full modes, rendering and truncation, opSnapshot.

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
      level: shownRole === 'heading' ? headingLevel(el, tag) : 0,
      opensSection: !!ctx.section && ctx.section.heading === el,
    };
  }

  // Notes a heading's line, for a section's bounds.
  function noteHeading(node, lines, ctx) {
    if (!ctx.section || !node.level) return;
    if (node.opensSection) ctx.section.line = lines.length - 1;
    ctx.section.levels.push([lines.length - 1, node.level]);
  }

  // The lines of a section, its heading's indent taken off.
  function sectionLines(lines, section) {
    if (section.line < 0) return [];
    const level = section.levels.find(([at]) => at === section.line)[1];
    const next = section.levels.find(([at, l]) => at > section.line && l <= level);
    const part = lines.slice(section.line, next ? next[0] : lines.length);
    const cut = part[0].length - part[0].trimStart().length;
    return part.map((line) => line.slice(Math.min(cut, line.length - line.trimStart().length)));
  }

  // A caption or legend that became the table's or group's name is not repeated as text.
  function markCaptionUsedAsName(el, tag, ctx) {
    if (!ctx.skip || el.hasAttribute('aria-label') || labelledByIds(el) !== null) return;
    const caption = tag === 'table' ? el.caption : el.querySelector(':scope > legend');
    if (caption) ctx.skip.add(caption);
  }

  // A line per element: its ref first (the word element tools take), then role, name,
  // states and value; lines without a ref start with the role.
  function lineFor(node) {
    let line = node.ref ? refText(node.ref) + ' ' + node.role : node.role;
    if (node.name) line += ' "' + quote(node.name) + '"';
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
  // only for the elements that would be listed (checkVisibility sees hidden ancestors too),
  // once each, so not kept: a cache entry per listed element cost more than it saved.
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
      const visibility = visibilityOf(el);
      if (visibility === SUBTREE_HIDDEN) return;
      if (visibility === VISIBLE) {
        const node = describe(el, role, tag, ctx, interactive);
        lines.push(lineFor(node));
        noteHeading(node, lines, ctx);
        if (ctx.marks && node.ref) ctx.marks.push({ el, node });
        if (tag === 'select' || (tag === 'input' && el.list)) {
          for (const line of choiceLines(el)) lines.push('  ' + line);
        }
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

  // The choices of a select, or a datalist's suggestions: a line under their control,
  // without refs (select and fill take an option's text), e.g. `options: "Novel",
  // "Poetry"` (`suggestions: ...` for a datalist, whose field takes any text). An
  // optgroup has its own line; a long list is cut, visibly. A drop-down's value already
  // names its chosen option; a list box marks each one chosen.
  const OPTIONS_SHOWN = 50;

  function choiceLines(control) {
    const tag = control.localName;
    const options = tag === 'select' ? control.options : control.list ? control.list.options : [];
    const markChosen = tag === 'select' && (control.multiple || control.size > 1);
    const groups = new Map();
    let shown = 0;
    let more = 0;
    for (const option of options) {
      if (isHiddenByMarkup(option) || (tag === 'input' && option.disabled)) continue;
      const group = option.parentElement && option.parentElement.localName === 'optgroup' ? option.parentElement : null;
      if (group && isHiddenByMarkup(group)) continue;
      if (shown === OPTIONS_SHOWN) {
        more++;
        continue;
      }
      shown++;
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(choiceText(option, markChosen));
    }
    const lines = [];
    for (const [group, choices] of groups) {
      if (!group) {
        lines.push((tag === 'select' ? 'options: ' : 'suggestions: ') + choices.join(', '));
      } else {
        const label = clamp(normalize(group.label || ''), NAME_MAX);
        lines.push('group "' + quote(label) + '"' + (group.disabled ? ' [disabled]' : '') + ': ' + choices.join(', '));
      }
    }
    if (more) lines.push(`... ${more} more ${tag === 'select' ? 'option' : 'suggestion'}${more === 1 ? '' : 's'}`);
    return lines;
  }

  function choiceText(option, markChosen) {
    // A datalist's suggestion is often only a value.
    const name = clamp(normalize(option.label || option.text || option.value), NAME_MAX);
    let text = '"' + quote(name) + '"';
    if (markChosen && option.selected) text += ' [selected]';
    if (option.disabled) text += ' [disabled]';
    return text;
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
    if (tag === 'select' || (tag === 'input' && el.list)) {
      node.choices = choiceLines(el);
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
    noteHeading(node, lines, ctx);
    if (node.choices && depth + 1 <= ctx.maxDepth) {
      for (const choice of node.choices) lines.push(indent(depth + 1) + choice);
    }
    for (const kid of kids) {
      if (kid.text !== undefined) {
        if (depth + 1 <= ctx.maxDepth) lines.push(indent(depth + 1) + 'text: ' + kid.text);
      } else if (kid.frameMarker) {
        lines.push(indent(depth + 1) + FRAME_MARK + kid.frameMarker);
      } else {
        renderNode(kid, depth + 1, lines, ctx);
      }
    }
  }

  function renderTop(items, lines, ctx) {
    for (const item of mergeText(items)) {
      if (item.text !== undefined) lines.push('text: ' + item.text);
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
    const hint = interactive ? 'scope the snapshot with ref or selector' : 'scope it with ref or selector, or interactive=true';
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
    let root = hasTarget(args) ? resolveTarget(args, table) : modal || doc.body || doc.documentElement;
    // A heading's part is its section: the page from it to the next heading of its level or above.
    const section = root && hasTarget(args) && !args.outline && roleOf(root, root.localName) === 'heading'
      ? { heading: root, line: -1, levels: [] } : null;
    if (section) root = root.ownerDocument.body || root.ownerDocument.documentElement;
    const ctx = newContext(table, {
      interactive: interactive || !!args.outline, compact, maxDepth, maxChars, modal, visibility: new Map(),
      skip: new WeakSet(), section, frames: args.outline ? null : [],
      frameFloor: Math.max(Number(args.next) || 0, place.floor, table.next),
    });
    if (args.outline) {
      return { text: opOutline(root, ctx).join('\n'), next: table.next, document: documentId() };
    }
    let lines = [];
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
    if (section) lines = sectionLines(lines, section);
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
