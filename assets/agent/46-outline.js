  // Outline: a big page's landmarks and headings with refs and how many controls each holds,
  // so an agent picks the part it needs (snapshot {ref}); a heading's part is its section.

  // ---------------------------------------------------------------------------------------
  // Outline

  const LANDMARK_ROLES = new Set([
    'banner', 'navigation', 'main', 'contentinfo', 'complementary', 'search', 'form', 'region',
    'dialog',
  ]);
  // Past this many headings the deepest levels are left out (their controls still count).
  const OUTLINE_HEADINGS_MAX = 150;

  function opOutline(root, ctx) {
    const state = { entries: [], landmarks: [], headings: [], controls: 0 };
    if (root) outlineVisit(root, ctx, state);
    const levels = shownLevels(state.entries);
    const lines = [];
    let leftOut = 0;
    for (const entry of state.entries) {
      if (entry.level > levels) {
        leftOut++;
        continue;
      }
      const depth = entry.landmarkDepth + Math.min(entry.headingDepth, levels);
      lines.push(indent(depth) + lineFor(entry.node) + ': ' + controlCount(entry.controls));
    }
    let head = `outline: ${controlCount(state.controls)} in all; snapshot {ref} reads one part (a heading's: its section)`;
    if (leftOut) head += `; ${leftOut} headings of level ${levels + 1}-6 left out`;
    return [head].concat(lines);
  }

  function controlCount(n) {
    return n === 1 ? '1 control' : `${n} controls`;
  }

  // The deepest heading level that keeps the outline within OUTLINE_HEADINGS_MAX headings.
  function shownLevels(entries) {
    const perLevel = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    for (const e of entries) if (e.level) perLevel[Math.min(e.level, 9)]++;
    let shown = 0;
    for (let level = 1; level <= 9; level++) {
      shown += perLevel[level];
      if (shown > OUTLINE_HEADINGS_MAX) return Math.max(1, level - 1);
    }
    return 9;
  }

  function outlineVisit(el, ctx, state) {
    const tag = el.localName;
    if (isHiddenByMarkup(el)) return;
    const role = roleOf(el, tag);
    const interactive = isInteractive(el, role);
    let landmark = null;
    if (LANDMARK_ROLES.has(role) || role === 'heading' || interactive) {
      const visibility = cachedVisibility(el, ctx);
      if (visibility === SUBTREE_HIDDEN) return;
      if (visibility === VISIBLE && interactive) countControl(state);
      if (role === 'heading' && visibility === VISIBLE) {
        addHeading(el, tag, ctx, state);
      } else if (LANDMARK_ROLES.has(role) && ((role !== 'form' && role !== 'region') || hasOwnName(el))) {
        landmark = addEntry(el, role, tag, ctx, state, 0);
        state.landmarks.push(landmark);
      }
    }
    if (tag === 'select' || tag === 'svg' || tag === 'iframe' || tag === 'frame') {
      if (landmark) state.landmarks.pop();
      return;
    }
    if (el.shadowRoot || tag === 'slot' || tag === 'details') {
      forEachShownChild(el, tag, (kid) => {
        if (kid.nodeType === ELEMENT_NODE) outlineVisit(kid, ctx, state);
      });
    } else {
      for (let kid = el.firstElementChild; kid; kid = kid.nextElementSibling) outlineVisit(kid, ctx, state);
    }
    if (landmark) {
      state.landmarks.pop();
      // A heading's section does not run out of the landmark it started in.
      state.headings = state.headings.filter((h) => h.landmark !== landmark);
    }
  }

  function countControl(state) {
    state.controls++;
    for (const l of state.landmarks) l.controls++;
    for (const h of state.headings) h.controls++;
  }

  function addHeading(el, tag, ctx, state) {
    const level = headingLevel(el, tag);
    const landmark = state.landmarks[state.landmarks.length - 1] || null;
    // A heading ends the sections of the headings at its level or below.
    state.headings = state.headings.filter((h) => h.level < level);
    const depth = state.headings.filter((h) => h.landmark === landmark).length;
    const entry = addEntry(el, 'heading', tag, ctx, state, level);
    entry.landmark = landmark;
    entry.headingDepth = depth;
    state.headings.push(entry);
  }

  function addEntry(el, role, tag, ctx, state, level) {
    const node = describe(el, role, tag, ctx, false);
    node.ref = refOf(ctx.table, el);
    // Indented under the landmarks it is in (a heading, further, under its parent headings).
    const entry = { node, level, controls: 0, landmark: null, headingDepth: 0, landmarkDepth: state.landmarks.length };
    state.entries.push(entry);
    return entry;
  }
