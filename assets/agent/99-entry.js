  // Entry point: the op table, error results and __sovereignAgent; closes the closure.

  // ---------------------------------------------------------------------------------------
  // Entry point

  const OPS = new Map([
    ['snapshot', opSnapshot],
    ['text', opText],
    ['html', opHtml],
    ['attr', opAttr],
    ['actionable', opActionable],
    ['intercepted', opIntercepted],
    ['focus', opFocus],
    ['prepare_fill', opPrepareFill],
    ['prepare_type', opPrepareType],
    ['value', opValue],
    ['scroll', opScroll],
    ['settle', opSettle],
    ['query', opQuery],
    ['find', opFind],
    ['page_info', opPageInfo],
    ['state', opState],
    ['checkable', opCheckable],
    ['scroll_into_view', opScrollIntoView],
    ['select', opSelect],
    ['has_text', opHasText],
    ['focused', opFocused],
    ['storage', opStorage],
    ['highlight', opHighlight],
    ['file_input', opFileInput],
    ['chosen_files', opChosenFiles],
    ['annotations', opAnnotations],
    ['frame_target', opFrameTarget],
    ['network', opNetwork],
    ['indexeddb', opIndexedDb],
    ['eval', opEval],
    ['audit', opAudit],
  ]);

  function errorResult(op, error) {
    if (error instanceof AgentError) return { ok: false, code: error.code, message: error.message };
    let detail;
    try {
      detail = error && error.name ? `${error.name}: ${error.message}` : String(error);
    } catch (_) {
      detail = 'unknown error'; // an exotic thrown value that cannot even be printed
    }
    return { ok: false, code: 'JS_ERROR', message: `agent operation ${String(op)} failed: ${detail}` };
  }

  // An op's reply, or (eval, IndexedDB) a promise of it. A page's text may hold half a
  // surrogate pair (a lone \ud83d): JSON.stringify writes it as an escape no strict parser
  // takes, so every string goes out well formed (U+FFFD in its place).
  function call(op, args) {
    const reply = run(op, args);
    return reply instanceof Promise ? reply.then(toJson) : toJson(reply);
  }

  function toJson(reply) {
    return JSON.stringify(reply, (key, value) =>
      typeof value === 'string' && !value.isWellFormed() ? value.toWellFormed() : value);
  }

  function run(op, args) {
    try {
      const handler = OPS.get(op);
      if (!handler) throw fail('INTERNAL', `the agent library has no operation "${op}"`);
      let params = typeof args === 'string' ? JSON.parse(args) : args;
      if (params === null || typeof params !== 'object') params = {};
      const table = tableFor(document);
      applyFloor(table, params.floor);
      const routed = frameRefOf(params.ref);
      let value;
      if (routed) value = forwardToFrame(op, params, routed, table);
      else if (params.frame) value = inFrame(op, params, table, handler);
      else value = handler(params, table);
      const ok = (v) => ({ ok: true, value: v === undefined ? null : v });
      if (value instanceof Promise) return value.then(ok, (error) => errorResult(op, error));
      return ok(value);
    } catch (error) {
      return errorResult(op, error);
    }
  }

  Object.defineProperty(globalThis, '__sovereignAgent', {
    value: Object.freeze({ call, version: 1 }),
    enumerable: false,
    writable: false,
    configurable: false,
  });
})();
