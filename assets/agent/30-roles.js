  // Roles: implicit and explicit ARIA roles; editable, focusable, interactive, disabled.

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
