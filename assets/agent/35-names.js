  // Accessible names: labels, content text, CSS generated content, aria-labelledby.

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
    // A field the person typed into during an ask adds nothing of its value.
    if (isPersonTyped(el)) return '';
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
        const before = acc.parts.length;
        if (acc.pseudo) acc.parts.push(pseudoText(kid, '::before'));
        appendContent(kid, ctx, skip, includeHidden, acc);
        if (acc.pseudo) acc.parts.push(pseudoText(kid, '::after'));
        // accname 2I: a descendant with no text of its own gives its tooltip (an icon's
        // title, as in Django's "Choose a Date" link).
        const title = kid.hasAttribute('title') && !acc.parts.slice(before).join('').trim() && trimAttr(kid, 'title');
        if (title) {
          acc.parts.push(' ', title, ' ');
          acc.length += title.length + 2;
        }
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
        // Unlabelled, a file input is named by its button, as the engines' own trees do.
        if (type === 'file') return labelsText(el, ctx) || (el.hasAttribute('title') ? '' : 'Choose File');
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
