  // States and values: checked, expanded and the rest, heading levels, control values.

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
    if (isPersonTyped(el)) return personTypedShown(el);
    switch (tag) {
      case 'input': {
        const type = el.type;
        if (type === 'checkbox' || type === 'radio' || type === 'file' || type === 'hidden') return null;
        if (role === 'button') return null;
        if (!el.value) return null;
        if (type === 'password') return maskedPassword(el).value;
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
