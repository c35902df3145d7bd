  // eval and wait_for_fn in a frame: the user's script in the frame page's own world.

  // ---------------------------------------------------------------------------------------
  // The browser runs user scripts in the top document only. In a frame (same-origin, or
  // this agent answering for its cross-origin frame) a script element runs them in the
  // page's own world, as assets/page-eval.js says, and leaves the result on the element.

  const PAGE_EVAL = '__SOVEREIGN_PAGE_EVAL__';
  const PAGE_EVAL_DONE = 'sovereign-eval-done';

  // The script element's text is constant: the user's script travels in an attribute.
  const PAGE_EVAL_SHELL = `(function (el, evaluate) {
  el.setAttribute('data-started', '');
  evaluate(el.getAttribute('data-script')).then(
    (text) => el.setAttribute('data-result', text),
    (e) => {
      let detail;
      try { detail = e && e.name ? e.name + ': ' + e.message : String(e); } catch (_) { detail = 'an exception'; }
      el.setAttribute('data-error', detail);
    },
  ).then(() => el.dispatchEvent(new Event('${PAGE_EVAL_DONE}')));
})(document.currentScript, ${PAGE_EVAL});`;

  function opEval(args, table) {
    const scope = scopeOf(table);
    const doc = scope.ownerDocument || scope;
    const el = doc.createElement('script');
    el.setAttribute('data-script', String(args.script));
    el.textContent = PAGE_EVAL_SHELL;
    return new Promise((resolve, reject) => {
      el.addEventListener(PAGE_EVAL_DONE, () => {
        const error = el.getAttribute('data-error');
        if (error !== null) {
          reject(fail('JS_ERROR', error));
          return;
        }
        try {
          resolve(JSON.parse(el.getAttribute('data-result')));
        } catch (_) {
          reject(fail('JS_ERROR', 'the page changed the result of the script'));
        }
      }, { once: true });
      (doc.head || doc.documentElement).appendChild(el);
      el.remove();
      if (!el.hasAttribute('data-started')) {
        reject(fail('JS_ERROR', "the frame's Content-Security-Policy does not let scripts run in it"));
      }
    });
  }
