  // Filling and typing: a field prepared for the host's trusted key events; options, pickers.

  // ---------------------------------------------------------------------------------------
  // Filling and typing: the host types with trusted key events; here the field is prepared.

  // How long a fill waits for the page to hear of the selection it made (see selectionSeen).
  const SELECTION_SEEN_MAX_MS = 50;
  // Pages finish with a field a moment after its last change, on a timer a person never
  // notices: a title fills in its slug (Wagtail: 100 ms after the last key), a rich
  // editor writes its content to the form (Draftail: 250 ms). A click that submits a
  // form comes once that moment has passed since the last change (typed in a field; in
  // an editor, or made by an editor's own script, such as a block inserted from a
  // dialog), so that the form sends what the page shows.
  const SETTLED_AFTER_FIELD_MS = 150;
  const SETTLED_AFTER_EDITOR_MS = 300;
  let settledAt = -Infinity;
  const noteChange = (ms) => { settledAt = Math.max(settledAt, performance.now() + ms); };
  const noteEditorChange = () => noteChange(SETTLED_AFTER_EDITOR_MS);
  window.addEventListener('input', (event) => {
    const target = event.composedPath()[0];
    noteChange(target && target.isContentEditable ? SETTLED_AFTER_EDITOR_MS : SETTLED_AFTER_FIELD_MS);
  }, { capture: true });
  const watchedEditors = new WeakSet();

  // An editing host that takes focus: its changes from now on are noted, and each time
  // it loses the focus.
  window.addEventListener('focusin', (event) => {
    let host = event.composedPath()[0];
    if (!host || host.nodeType !== ELEMENT_NODE || !isEditable(host) || fieldKind(host) !== 'editable') return;
    while (host.parentElement && isEditable(host.parentElement)) host = host.parentElement;
    if (watchedEditors.has(host)) return;
    watchedEditors.add(host);
    new MutationObserver(noteEditorChange).observe(host, { subtree: true, childList: true, characterData: true });
    // Leaving it is a change of the editor's state too, and starts its timer again.
    host.addEventListener('focusout', noteEditorChange);
  }, { capture: true });

  // Whether a click on `el` submits its form.
  function submitsForm(el) {
    const control = el && el.closest && el.closest('button, input');
    if (!control || !control.form) return false;
    if (control.localName === 'button') return control.type === 'submit';
    return control.type === 'submit' || control.type === 'image';
  }

  // Whether the page's last change has not settled yet: only then is the target looked up.
  function changedLately() {
    return performance.now() < settledAt;
  }

  // A promise of the moment the last change has settled, when a click on `el` would
  // submit a form before it; otherwise null.
  function changesSettled(el) {
    const left = settledAt - performance.now();
    return left > 0 && submitsForm(el) ? new Promise((resolve) => setTimeout(resolve, left)) : null;
  }

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
    const vault = Array.isArray(args.vault_origins) ? args.vault_origins : null;
    // A vault's secret may fill again a field it filled, never one the person typed into.
    if (!(vault && isVaultFilledOnly(el))) refusePersonTyped(el, 'change or read it');
    const kind = fieldKind(el);
    if (!kind) throw notATextField(el, '');
    checkEditable(el);
    const value = requireValue(args);
    if (vault) return fillFromVault(el, kind, value, vault);
    let mode = 'text';
    switch (kind) {
      case 'text':
        focusOrFail(el);
        selectAllText(el);
        replaceSelection(el, value);
        break;
      case 'editable':
        // Rich editors (Draft.js, ProseMirror, Lexical) keep their own model of the
        // selection, learnt from selectionchange: the text goes in once they have it.
        focusOrFail(el);
        return selectionSeen(el, () => selectEditableContents(el, false))
          .then(() => replaceSelection(el, value))
          .then(() => ({ mode, input_type: null, read: valueReading(el) }));
      case 'set':
        setPickerValue(el, value);
        mode = 'set';
        break;
      default:
        chooseOption(el, value);
        mode = 'set';
    }
    // Read back in the same turn: what the page's handlers left in the field.
    return { mode, input_type: el.localName === 'input' ? el.type : null, read: valueReading(el) };
  }

  // A vault entry's secret into a text field whose own document has one of the entry's
  // origins (a frame of another origin never takes it); the field is the person's from
  // then on, and its value is not read back.
  function fillFromVault(el, kind, value, origins) {
    const loc = el.ownerDocument.location;
    const port = loc.port || (loc.protocol === 'https:' ? '443' : loc.protocol === 'http:' ? '80' : '');
    const origin = `${loc.protocol}//${loc.hostname}:${port}`;
    if (!origins.includes(origin)) {
      throw fail('SECRET_REFUSED', `frame: this field is in a document of ${origin}, which is not one of the entry's sites`);
    }
    if (kind !== 'text' && kind !== 'editable') {
      throw fail('INVALID_PARAMS', 'a vault\'s secret fills a text field only');
    }
    focusOrFail(el);
    // Shown as dots before the text is in, so no picture of the page (a screenshot, the
    // recording's, a PDF) and no paint of the window ever shows it.
    maskVaultFilled(el);
    const done = () => {
      markVaultFilled(el);
      const filled = kind === 'text' ? el.value !== '' : el.textContent !== '';
      return { mode: 'text', input_type: el.localName === 'input' ? el.type : null, read: { filled } };
    };
    if (kind === 'editable') {
      return selectionSeen(el, () => selectEditableContents(el, false))
        .then(() => replaceSelection(el, value))
        .then(done);
    }
    selectAllText(el);
    replaceSelection(el, value);
    return done();
  }

  // The selected old text replaced by `value` the way typed text arrives: a textInput
  // event, whose default the engine carries out as an edit (trusted beforeinput and input
  // events, inputType insertText), or which the page cancels to make the edit itself, as
  // rich editors built on React do. An empty value deletes with the engine's own command
  // (deleteContent*). Run here, in the checks' turn, the fill needs no further round trip
  // to the page, each of which would wait for the engine to repaint the changed field.
  function replaceSelection(el, value) {
    const doc = el.ownerDocument;
    if (value === '') {
      doc.execCommand('delete', false, null);
      return;
    }
    const event = doc.createEvent('TextEvent');
    event.initTextEvent('textInput', true, true, doc.defaultView, value);
    el.dispatchEvent(event);
  }

  // Runs `change` (a new selection), and resolves once the page has been told of it: its
  // selectionchange event comes in a task of its own. An unchanged selection sends none,
  // hence the cap.
  function selectionSeen(el, change) {
    const doc = el.ownerDocument;
    return new Promise((resolve) => {
      let timer = 0;
      const done = () => {
        doc.removeEventListener('selectionchange', done, true);
        clearTimeout(timer);
        resolve();
      };
      doc.addEventListener('selectionchange', done, true);
      timer = setTimeout(done, SELECTION_SEEN_MAX_MS);
      change();
    });
  }

  function opPrepareType(args, table) {
    const el = fieldTarget(args, table);
    refusePersonTyped(el, 'change or read it');
    const kind = fieldKind(el);
    if (kind === 'set') {
      throw fail('NOT_INTERACTABLE',
        `element is a <input type=${el.type}>, not a text field; use fill with a value like ${VALUE_FORMATS[el.type]}`);
    }
    if (kind === 'select') throw notATextField(el, "use fill with the option's text or value");
    if (!kind) throw notATextField(el, '');
    checkEditable(el);
    focusOrFail(el);
    return { mode: 'text', caret_by_engine: !caretToEnd(el) };
  }

  // Puts the caret after a focused field's content (WebKit selects it all on a script's
  // focus, and typed keys would replace it). False where only the engine can: email and
  // number inputs have no selection API.
  function caretToEnd(el) {
    if (fieldKind(el) === 'editable') {
      selectEditableContents(el, true);
      return true;
    }
    try {
      el.setSelectionRange(el.value.length, el.value.length);
      return true;
    } catch (_) {
      return false;
    }
  }
