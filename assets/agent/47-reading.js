  // Reading: text, HTML, attributes, values, page info and queries.

  // ---------------------------------------------------------------------------------------
  // Reading

  function isTextValueElement(el) {
    return el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select';
  }

  function visibleText(el) {
    const text = el.innerText;
    return typeof text === 'string' ? text : el.textContent || '';
  }

  function isPassword(el) {
    return el.localName === 'input' && el.type === 'password';
  }

  // A password field's value as every read shows it: never the secret itself (it would
  // reach the model's context and logs); its length is enough to check.
  function maskedPassword(el) {
    return { value: '\u2022'.repeat(Math.min(el.value.length, 16)), masked: true, length: el.value.length };
  }

  function opText(args, table) {
    const el = resolveTarget(args, table);
    refusePersonTyped(el, 'read its value');
    if (el.localName === 'select') return selectedOptionsText(el);
    if (isPassword(el)) return maskedPassword(el).value;
    return isTextValueElement(el) ? el.value : visibleText(el);
  }

  function opHtml(args, table) {
    const el = resolveTarget(args, table);
    refusePersonTyped(el, 'read the HTML that holds it', true);
    return el.innerHTML;
  }

  function opAttr(args, table) {
    if (typeof args.attr !== 'string' || !args.attr) {
      throw fail('INVALID_PARAMS', 'attr must be an attribute name, e.g. "href"');
    }
    const el = resolveTarget(args, table);
    refusePersonTyped(el, 'read its attributes (a page may copy the value into one)');
    return { attr: args.attr, value: el.getAttribute(args.attr) };
  }

  function opValue(args, table) {
    const el = resolveTarget(args, table);
    refusePersonTyped(el, 'read its value');
    return valueReading(el);
  }

  // What get_value answers for el (a password field's value masked).
  function valueReading(el) {
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      return { value: el.value, checked: el.checked };
    }
    if (isPassword(el)) return maskedPassword(el);
    if (isTextValueElement(el)) return { value: el.value };
    if (isEditable(el)) return { value: visibleText(el) };
    return { value: null };
  }

  // The page's document, or the frame's chosen with frame_switch.
  function opPageInfo(args, table) {
    const doc = scopeOf(table);
    const win = doc.defaultView || window;
    return {
      url: doc.URL,
      title: doc.title,
      ready: doc.readyState,
      scrollX: Math.round(win.scrollX),
      scrollY: Math.round(win.scrollY),
      width: win.innerWidth,
      height: win.innerHeight,
    };
  }

  function opQuery(args, table) {
    const el = querySelectorChecked(scopeOf(table), args.selector);
    if (!el) return { found: false, visible: false, ref: null, next: table.next };
    const ref = refText(refOf(table, el));
    return { found: true, visible: isRendered(el), ref, next: table.next };
  }
