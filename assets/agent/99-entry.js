  // Entry point: the op table, error results and __sovereignAgent; closes the closure.

  // ---------------------------------------------------------------------------------------
  // Entry point

  const OPS = new Map([
    ['snapshot', opSnapshot],
    ['text', opText],
    ['html', opHtml],
    ['attr', opAttr],
    ['point', opPoint],
    ['focus', opFocus],
    ['prepare_fill', opPrepareFill],
    ['prepare_type', opPrepareType],
    ['value', opValue],
    ['scroll', opScroll],
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

  // The result as the browser reads it; a promise of it for an op that waits.
  function settle(op, result, then) {
    // An op that waits answers with a promise of its value.
    if (!result.ok || !(result.value instanceof Promise)) return then(result);
    return result.value.then(
      (value) => then({ ok: true, value: value === undefined ? null : value }),
      (error) => then(errorResult(op, error)),
    );
  }

  function call(op, args) {
    return settle(op, run(op, args), JSON.stringify);
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
      return { ok: true, value: value === undefined ? null : value };
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
