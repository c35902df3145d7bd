  // Highlight: an outline on an element, removed after a while.

  // ---------------------------------------------------------------------------------------
  // Highlight: an outline a person (or a screenshot) sees, removed after a while.

  const highlights = new WeakMap();

  function opHighlight(args, table) {
    const el = resolveTarget(args, table);
    const ms = intArg(args, 'ms', 2000, 0);
    const rect = sizedRectOf(el);
    if (!rect) throw fail('NOT_INTERACTABLE', 'element is hidden (not displayed or zero size)');
    const previous = highlights.get(el);
    if (previous) clearTimeout(previous.timer);
    const saved = previous ? previous.saved : {
      outline: el.style.getPropertyValue('outline'),
      priority: el.style.getPropertyPriority('outline'),
      offset: el.style.getPropertyValue('outline-offset'),
    };
    el.style.setProperty('outline', '3px solid rgb(230, 40, 40)', 'important');
    el.style.setProperty('outline-offset', '2px');
    const restore = () => {
      el.style.setProperty('outline', saved.outline, saved.priority);
      el.style.setProperty('outline-offset', saved.offset);
      highlights.delete(el);
    };
    const timer = ms > 0 ? setTimeout(restore, ms) : 0;
    highlights.set(el, { saved, timer });
    return Object.assign({ highlighted: true, ms }, stateBox(el, table));
  }
