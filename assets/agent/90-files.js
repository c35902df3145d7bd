  // Files and annotations: file inputs, annotated elements in view, frame targets.

  // ---------------------------------------------------------------------------------------
  // Files and annotations

  // upload: the file input a ref, selector or label names, and what it takes.
  function opFileInput(args, table) {
    let el = resolveTarget(args, table);
    if (el.localName === 'label' && el.control) el = el.control;
    if (el.localName !== 'input' || el.type !== 'file') {
      throw fail('INVALID_PARAMS', `element is ${shortDescription(el)}, not an <input type=file>`);
    }
    if (isDisabled(el, 'input')) throw fail('NOT_INTERACTABLE', 'the file input is disabled');
    if (Array.isArray(args.expect)) watchFiles(el, args.expect);
    return { ref: refText(refOf(table, el)), multiple: el.multiple, accept: el.accept || null };
  }

  // How long a file input may take to hold the files its chooser was answered with.
  const FILES_LIMIT_MS = 5000;
  // Per file input: settles once the files an upload chooses are in it and the page's
  // input and change listeners have run.
  const fileWatches = new WeakMap();

  function holds(el, expect) {
    const files = Array.from(el.files || []);
    return files.length === expect.length &&
      files.every((f, i) => f.name === String(expect[i].name) && f.size === Number(expect[i].size));
  }

  // Before the chooser opens: the input takes chosen files in a later task (WebKit builds
  // the file list off the main thread) and then fires input and change, unless it holds
  // those files already, when nothing changes and no event comes.
  function watchFiles(el, expect) {
    if (holds(el, expect)) {
      fileWatches.set(el, Promise.resolve());
      return;
    }
    const win = el.ownerDocument.defaultView;
    fileWatches.set(el, new Promise((resolve) => {
      const seen = (event) => {
        if (event.target !== el) return;
        win.removeEventListener('change', seen, true);
        // Every listener of this change runs in its dispatch: answer after it.
        setTimeout(resolve, 0);
      };
      win.addEventListener('change', seen, true);
    }));
  }

  // upload, once the chooser was answered: the files the input holds when it has them.
  function opChosenFiles(args, table) {
    const el = resolveTarget(args, table);
    const watch = fileWatches.get(el) || Promise.resolve();
    fileWatches.delete(el);
    let timer;
    const limit = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(fail('TIMEOUT',
        `the file input did not take the files within ${FILES_LIMIT_MS} ms (the page may have replaced it)`)), FILES_LIMIT_MS);
    });
    return Promise.race([watch, limit]).then(() => {
      clearTimeout(timer);
      return { files: stateValue(el).files || [] };
    });
  }

  // screenshot_annotated: each interactive element in view, with its ref and box.
  function opAnnotations(args, table) {
    const ctx = newContext(table, {
      interactive: true, compact: true, maxDepth: Infinity, visibility: new Map(), skip: new WeakSet(),
      marks: [],
    });
    const root = modalDialog(scopeOf(table)) || scopeOf(table).body;
    if (root) visitInteractive(root, ctx, []);
    const view = { width: innerWidth, height: innerHeight };
    const marks = [];
    for (const { el, node } of ctx.marks) {
      const rect = el.getBoundingClientRect();
      if (rect.width <= 0 || rect.height <= 0) continue;
      const chain = frameChain(el.ownerDocument, table.doc) || [];
      const corner = toTopPoint({ x: rect.left, y: rect.top }, chain);
      if (corner.x >= view.width || corner.y >= view.height) continue;
      if (corner.x + rect.width <= 0 || corner.y + rect.height <= 0) continue;
      marks.push({
        ref: refText(node.ref),
        line: lineFor(node),
        x: corner.x,
        y: corner.y,
        width: rect.width,
        height: rect.height,
      });
    }
    return { marks, next: table.next };
  }

  // frame_switch: the frame a ref or selector names, and what it shows.
  function opFrameTarget(args, table) {
    const frame = resolveTarget(args, table);
    if (frame.localName !== 'iframe' && frame.localName !== 'frame') {
      throw fail('INVALID_PARAMS', `element is ${shortDescription(frame)}, not an iframe or frame`);
    }
    if (place !== TOP_PLACE) {
      throw fail('UNSUPPORTED',
        'a frame inside a cross-origin frame cannot be chosen; use the refs its elements have in a snapshot');
    }
    const inner = sameOriginDocument(frame);
    return {
      ref: refText(refOf(table, frame)),
      url: inner ? inner.location.href : frame.src || null,
      same_origin: !!inner,
      name: nameOf(frame, 'iframe', newContext(table)),
    };
  }
