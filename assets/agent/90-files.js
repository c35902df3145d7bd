  // Files and annotations: file inputs, annotated elements in view, frame targets.

  // ---------------------------------------------------------------------------------------
  // Files and annotations

  // upload: the file input a ref, selector or label names, and what it takes. Any other
  // element is a control that opens the chooser when clicked (a button whose script
  // clicks a hidden input, or one under an unseen file input laid over it): the click
  // goes to it, and the files to the input the chooser answers.
  function opFileInput(args, table) {
    let el = resolveTarget(args, table);
    if (el.localName === 'label' && el.control) el = el.control;
    const expect = Array.isArray(args.expect) ? args.expect : null;
    const ref = refText(refOf(table, el));
    if (!isFileInput(el)) {
      const watch = expect ? watchFiles(el, expect, null) : null;
      return { ref, multiple: null, accept: null, opener: shortDescription(el), watch };
    }
    if (isDisabled(el, 'input')) throw fail('NOT_INTERACTABLE', 'the file input is disabled');
    const watch = expect ? watchFiles(el, expect, el) : null;
    return { ref, multiple: el.multiple, accept: el.accept || null, opener: null, watch };
  }

  // How long a file input may take to hold the files its chooser was answered with.
  const FILES_LIMIT_MS = 5000;
  // Per upload, by number (the page may replace the input it clicked, as jQuery's upload
  // plugin does): settles, with the file input that took the files and what it took,
  // once they are in it and the page's input and change listeners have run. An upload
  // takes its own back; a few left by uploads that failed are dropped.
  const fileWatches = new Map();
  const FILE_WATCHES_MAX = 8;
  let fileWatchCount = 0;

  // Whether the input holds the files expected, in order; `some`: the first of them at
  // least (a chooser for one file takes the first it is given).
  function holds(el, expect, some = false) {
    const files = Array.from(el.files || []);
    const count = some ? files.length > 0 && files.length <= expect.length : files.length === expect.length;
    return count && files.every((f, i) => f.name === String(expect[i].name) && f.size === Number(expect[i].size));
  }

  function isFileInput(node) {
    return !!node && node.localName === 'input' && node.type === 'file';
  }

  // Before the chooser opens: the input takes chosen files in a later task (WebKit builds
  // the file list off the main thread) and then fires input and change, unless it holds
  // those files already, when nothing changes and no event comes. `input` is the file
  // input clicked, or null when the clicked control opens some input's chooser.
  function watchFiles(clicked, expect, input) {
    const id = ++fileWatchCount;
    for (const old of fileWatches.keys()) {
      if (fileWatches.size < FILE_WATCHES_MAX) break;
      fileWatches.delete(old);
    }
    if (input && holds(input, expect)) {
      fileWatches.set(id, Promise.resolve({ input, files: stateValue(input).files || [] }));
      return id;
    }
    const win = clicked.ownerDocument.defaultView;
    fileWatches.set(id, new Promise((resolve) => {
      const seen = (event) => {
        const target = event.composedPath()[0];
        if (!isFileInput(target) || (target !== input && !holds(target, expect, true))) return;
        win.removeEventListener('change', seen, true);
        // What it took, read before the page's listeners (which may empty the input once
        // they have sent the files); the answer comes after every one of them has run.
        const files = stateValue(target).files || [];
        setTimeout(() => resolve({ input: target, files }), 0);
      };
      win.addEventListener('change', seen, true);
    }));
    return id;
  }

  // upload, once the chooser was answered: the files the input holds when it has them.
  function opChosenFiles(args, table) {
    const watch = fileWatches.get(args.watch);
    if (!watch) throw fail('INTERNAL', 'this upload was not being watched (the page may have been replaced)');
    fileWatches.delete(args.watch);
    let timer;
    const limit = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(fail('TIMEOUT',
        `the file input did not take the files within ${FILES_LIMIT_MS} ms (the page may have replaced it)`)), FILES_LIMIT_MS);
    });
    return Promise.race([watch, limit]).then((took) => {
      clearTimeout(timer);
      if (!took) return { files: [], input: null };
      return { files: took.files, input: refText(refOf(table, took.input)) };
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
