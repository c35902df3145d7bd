  // Element state: value, box, styles, visibility, enabled, checked; select, has_text, focused.

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
    refusePersonTyped(el, 'read its value');
    const tag = el.localName;
    if (isPassword(el)) return maskedPassword(el);
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
      ref: refText(refOf(table, el)),
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
    refusePersonTyped(el, 'change or read its choice');
    if (byOption) {
      if (args.values !== undefined && args.values !== null) {
        throw fail('INVALID_PARAMS', 'the ref is an option already: give no value, or the select\'s ref with value');
      }
      return chooseOptions(el, [target]);
    }
    const values = Array.isArray(args.values) ? args.values : [args.values];
    if (!values.length || !values.every((v) => typeof v === 'string')) {
      throw fail('INVALID_PARAMS', 'value must be an option value or text, or a list of them (a multiple select)');
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
    // `element`: which one, for the recording (a password field's typing is not kept).
    const result = { focused: shortDescription(inner), element: described(inner, inner.localName, table) };
    if ((isTextValueElement(inner) || isEditable(inner)) && !isPersonTyped(inner)) result.value = stateValue(inner).value;
    return result;
  }
