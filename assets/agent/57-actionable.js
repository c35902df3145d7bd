  // Actionability (opActionable): an input waits until its element can take it.

  // ---------------------------------------------------------------------------------------
  // Before an input, its element must be visible, stable (the same box on two animation
  // frames, or nothing animating it), enabled, editable (text input) and the topmost element at the point the input
  // goes to: `args.checks` says which of these the action needs. Each animation frame looks
  // again until `args.wait_ms` has passed, scrolling the element into view (through its
  // frames); then the op fails with NOT_INTERACTABLE saying what stood in the way, the
  // covering element named by role, name and selector. `args.then`, another op of this
  // library, runs in the same turn as the last look, so that nothing moves in between.

  const ACTION_CHECKS = new Set(['visible', 'stable', 'enabled', 'editable', 'hit']);
  const ACTION_WAIT_MAX_MS = 120000;
  // A page that is not painted gets no animation frames: look again after this at most.
  const FRAME_WAIT_MS = 50;
  // Boxes closer than this (CSS px) are the same box.
  const STABLE_EPSILON = 0.5;

  // What stopped an input this time; it may be gone on the next frame.
  // `again`: this look cannot be the last (it could not tell yet).
  class NotYet {
    constructor(why, again = false) {
      this.why = why;
      this.again = again;
    }
  }

  function nextFrame() {
    return new Promise((resolve) => {
      let done = false;
      const go = () => {
        if (!done) {
          done = true;
          resolve();
        }
      };
      requestAnimationFrame(go);
      setTimeout(go, FRAME_WAIT_MS);
    });
  }

  // role "name" (selector): how an agent recognises an element in a snapshot or a query.
  function describeElement(el, table) {
    const role = roleOf(el, el.localName) || 'generic';
    const name = clamp(nameOf(el, role, newContext(table)), 60);
    return `${role}${name ? ` "${quote(name)}"` : ''} (${uniqueSelector(el)})`;
  }

  // Whether a running animation or transition may move `el`: one on it or on anything
  // holding it, up through its frames. A frame of another origin hides its holders: then
  // yes. (A script moving it by hand is not seen here; the click guard catches where the
  // click lands.)
  function mayBeAnimated(el, chain) {
    const frames = [el, ...chain];
    for (const node of frames) {
      const doc = node.ownerDocument;
      if (typeof doc.getAnimations !== 'function') return true;
      for (const animation of doc.getAnimations()) {
        const target = animation.effect && animation.effect.target;
        if (target && animation.playState === 'running' && composedContains(target, node)) return true;
      }
    }
    const top = frames[frames.length - 1].ownerDocument.defaultView;
    return !top || (top !== top.top && !top.frameElement);
  }

  function sameBox(a, b) {
    return !!a && !!b && ['left', 'top', 'width', 'height'].every((k) => Math.abs(a[k] - b[k]) < STABLE_EPSILON);
  }

  function isReadOnly(el) {
    return el.readOnly === true || el.getAttribute('aria-readonly') === 'true';
  }

  // One look: the point the input goes to (null when the action needs none), or NotYet.
  function actionLook(args, table, checks, seen) {
    const target = resolveTarget(args, table);
    const tag = target.localName;
    const select = tag === 'option' ? target.closest('select') : null;
    if (select && roleOf(select, 'select') === 'combobox') {
      if (checks.has('enabled') && isDisabled(select, 'select')) throw new NotYet('disabled');
      // The op that follows (select) takes the option as it is.
      if (args.then) return null;
      // Its menu is the browser's, not the page's: pick it as a person would from it.
      if (!args.choose) {
        throw fail('NOT_INTERACTABLE',
          "an option of a drop-down <select> has no place on the page; click it or use select with its ref");
      }
      return { chosen: chooseOptions(select, [target]) };
    }
    let clicked = target;
    if (visibilityOf(target) !== VISIBLE || !sizedRectOf(target)) {
      clicked = visibleLabelFor(target) || target;
      if (clicked === target && checks.has('visible')) throw new NotYet('hidden (not displayed, or zero size)');
    }
    if (checks.has('enabled') && isDisabled(target, tag)) throw new NotYet('disabled');
    if (checks.has('editable') && isReadOnly(target)) throw new NotYet('read-only');
    // No point needed: an op that follows is told which element it was (the recording's).
    if (!checks.has('stable') && !checks.has('hit')) return args.then ? described(target, tag, table) : null;
    const doc = clicked.ownerDocument;
    const chain = frameChain(doc, table.doc) || [];
    let point = locate(clicked, doc, chain, false);
    let hit = point && checks.has('hit') && deepElementFromPoint(doc, point.x, point.y);
    if (checks.has('hit') && (!hit || !hitReaches(target, clicked, hit))) {
      // Maybe clipped by a scrolling container: centre it and look again.
      scrollIntoViewInstant(clicked);
      revealInFrames(clicked, chain);
      point = locate(clicked, doc, chain, true);
      hit = point && deepElementFromPoint(doc, point.x, point.y);
    }
    if (!point) throw new NotYet('outside the visible area, and scrolling did not bring it in');
    let moving = null;
    if (checks.has('stable')) {
      const box = sizedRectOf(clicked);
      // The first look has nothing to compare with: it takes a second one on the next
      // frame, unless nothing animates the element or what holds it.
      const settled = !seen.box && !mayBeAnimated(clicked, chain);
      if (!settled && !sameBox(box, seen.box)) {
        moving = new NotYet('moving (its box changed between two animation frames)', !seen.box);
      }
      seen.box = box;
    }
    if (checks.has('hit')) {
      if (!hit) throw new NotYet('outside the visible area, and scrolling did not bring it in', !!moving && moving.again);
      // A page may lay an unseen file input over its own button: a click meant to open a
      // chooser lands on it, as a person's does.
      const opensChooser = args.opens_chooser && isFileInput(hit);
      if (!hitReaches(target, clicked, hit) && !opensChooser) {
        throw new NotYet(`covered by ${describeElement(hit, table)}`, !!moving && moving.again);
      }
    }
    if (moving) throw moving;
    if (args.intercept) armInterceptor(target, clicked, table, args.count, !!args.opens_chooser);
    return {
      x: point.top.x + place.x,
      y: point.top.y + place.y,
      vw: place.vw || innerWidth,
      vh: place.vh || innerHeight,
      tag,
      draggable: isDraggable(target),
      ...described(target, tag, table),
    };
  }

  // The element as the snapshot names it; a password field is marked, so that what is
  // typed into it stays out of recordings.
  function described(target, tag, table) {
    const role = roleOf(target, tag) || 'generic';
    return {
      role,
      name: nameOf(target, role, newContext(table)),
      secret: tag === 'input' && String(target.type).toLowerCase() === 'password',
      testid: target.getAttribute('data-testid') || undefined,
    };
  }

  // Whether a failed look may succeed later: the element is not there yet (a selector), or
  // a check did not pass.
  function mayPassLater(error, args) {
    if (error instanceof NotYet) return true;
    return error instanceof AgentError && error.code === 'ELEMENT_NOT_FOUND' && !args.ref;
  }

  function opActionable(args, table) {
    // A click that submits a form comes once the page has settled the last change.
    if (args.intercept && !args.settled && changedLately()) {
      let target = null;
      try {
        target = resolveTarget(args, table);
      } catch (_) {
        // Not found yet: the checks below wait for it, or say so.
      }
      const settled = changesSettled(target);
      if (settled) return settled.then(() => opActionable({ ...args, settled: true }, table));
    }
    const checks = new Set((Array.isArray(args.checks) ? args.checks : []).filter((c) => ACTION_CHECKS.has(c)));
    const wait = Math.max(0, Math.min(Number(args.wait_ms) || 0, ACTION_WAIT_MAX_MS));
    const then = args.then ? OPS.get(args.then) : null;
    if (args.then && (!then || args.then === 'actionable')) {
      throw fail('INTERNAL', `actionable cannot run "${String(args.then)}" after its checks`);
    }
    const started = performance.now();
    // Where this document sits, and the frame chosen with frame_switch: both are set only
    // while the op is called, and later looks need them again.
    const here = place;
    const scope = table.scope;
    const seen = { box: null };
    const look = () => {
      const [outerPlace, outerScope] = [place, table.scope];
      place = here;
      table.scope = scope;
      try {
        const point = actionLook(args, table, checks, seen);
        if (!then || (point && point.chosen)) return { done: point };
        const result = then(args, table);
        // An op that waits for the page (fill in a rich editor) answers with a promise.
        if (result instanceof Promise) return { done: result.then((r) => ({ point, result: r })) };
        return { done: { point, result } };
      } catch (error) {
        if (!mayPassLater(error, args)) throw error;
        return { notYet: error };
      } finally {
        place = outerPlace;
        table.scope = outerScope;
      }
    };
    // What each look found, as it changed: the way to the failure, said with it.
    const way = [];
    return new Promise((resolve, reject) => {
      const step = () => {
        let outcome;
        try {
          outcome = look();
        } catch (error) {
          reject(error);
          return;
        }
        if (outcome.done !== undefined) {
          resolve(outcome.done);
          return;
        }
        const waited = Math.round(performance.now() - started);
        noteTheWay(way, waited, outcome.notYet);
        if (waited >= wait && !outcome.notYet.again) {
          reject(whyNot(outcome.notYet, waited, way));
          return;
        }
        nextFrame().then(step);
      };
      step();
    });
  }

  // The most changes of what a look found that a failure tells.
  const WAY_MAX = 6;

  // Notes what a look found when it differs from the last one noted.
  function noteTheWay(way, waited, error) {
    const found = error instanceof NotYet ? error.why : error.message;
    if (way.length && way[way.length - 1].found === found) return;
    if (way.length < WAY_MAX) way.push({ at: waited, found });
  }

  function whyNot(error, waited, way = []) {
    const after = waited > 0 ? ` (waited ${waited} ms)` : '';
    // Only when it changed on the way: one finding is the message itself.
    const steps = way.length > 1 ? `; on the way: ${way.map((s) => `${s.at} ms ${s.found}`).join(', then ')}` : '';
    if (error instanceof NotYet) {
      const hint = error.why.startsWith('covered') ? '; close or dismiss that first, or scroll' : '';
      return fail('NOT_INTERACTABLE', `element is ${error.why}${after}${hint}${steps}`);
    }
    return fail(error.code, `${error.message}${after}${steps}`);
  }

  // ---------------------------------------------------------------------------------------
  // The input goes to the point just checked, at once; yet a page may move something there
  // as the pointer arrives (a button that jumps on hover). Until the browser has asked
  // opIntercepted, the interceptor lets a pointer press, release or click through only when
  // it reaches the target; any other it stops before the page hears of it, and remembers
  // what it would have reached, so that the click is tried again (Playwright intercepts the
  // hit target the same way).

  const POINTER_EVENTS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
  // The events of a click that follow its press.
  const RELEASE_EVENTS = new Set(['pointerup', 'mouseup', 'click', 'auxclick', 'dblclick']);
  // An interceptor nobody asks about (the input never came) goes after this.
  const INTERCEPT_MAX_MS = 2000;
  let interceptor = null;
  // What the last interceptor saw, kept for opIntercepted once it is gone.
  let intercepted = { missed: null };

  // Armed for one click (count 2: a double click); it goes once the page had them.
  function armInterceptor(target, clicked, table, count, opensChooser) {
    disarmInterceptor();
    const win = target.ownerDocument.defaultView;
    const state = { missed: null, clicksLeft: Math.max(1, Number(count) || 1) };
    // A target the page rendered anew meanwhile (an equal node in its place) is still it.
    const current = () => (target.isConnected ? target : rendered(table, target) || target);
    const reaches = (el) => composedContains(target, el) || composedContains(clicked, el) ||
      hitReaches(target, clicked, el) || composedContains(current(), el) ||
      (opensChooser && isFileInput(el));
    const check = (event) => {
      if (!event.isTrusted) return;
      const el = event.composedPath()[0];
      // Once the press reached the target, the release is the same gesture's wherever it
      // lands, as a person's is: an element that replaces itself as it takes focus (a rich
      // editor's placeholder) gets its release on the replacement. Noted, never stopped.
      if (state.pressed && !state.missed && RELEASE_EVENTS.has(event.type)) {
        if (!state.endedOn && el && el.nodeType === ELEMENT_NODE && !reaches(el)) {
          state.endedOn = describeElement(el, table);
        }
        if (event.type === 'click' && --state.clicksLeft <= 0 && interceptor === state) disarmInterceptor();
        return;
      }
      const through = !state.missed && el && el.nodeType === ELEMENT_NODE && reaches(el);
      if (!through) {
        if (!state.missed) state.missed = el && el.nodeType === ELEMENT_NODE ? describeElement(el, table) : 'nothing';
        event.preventDefault();
        event.stopImmediatePropagation();
      } else if (event.type === 'pointerdown') {
        state.pressed = el;
      }
      // The page's own click handler may open a dialog: be gone before it runs.
      if (event.type === 'click' && --state.clicksLeft <= 0 && interceptor === state) disarmInterceptor();
    };
    for (const type of POINTER_EVENTS) win.addEventListener(type, check, true);
    const timer = setTimeout(() => interceptor === state && disarmInterceptor(), INTERCEPT_MAX_MS);
    state.remove = () => {
      clearTimeout(timer);
      for (const type of POINTER_EVENTS) win.removeEventListener(type, check, true);
    };
    interceptor = state;
    intercepted = state;
  }

  function disarmInterceptor() {
    const state = interceptor;
    interceptor = null;
    if (state) state.remove();
  }

  // What the last click would have reached instead of its target (null: it reached it),
  // whether the page took the click away (it removed the pressed node before the release,
  // and WebKit fires no click then), and the element its release landed on when that was
  // another (the target replaced itself as it took focus).
  function opIntercepted() {
    disarmInterceptor();
    const { missed, pressed, clicksLeft, endedOn } = intercepted;
    const lost = !missed && clicksLeft > 0 && !!pressed && !pressed.isConnected;
    intercepted = { missed: null };
    return { missed, lost, ended_on: endedOn || null };
  }
