// Sovereign Browser form posts, injected at document start into every
// frame, in the agent's isolated world. WebKit hands the browser no body of
// a form's submission, so this tells it what each form of the document
// sends as it is submitted: the address, the encoding and the entry list,
// read from the `formdata` event that every submission fires (a click,
// Enter in a field, submit(), requestSubmit()). The browser shows them as
// the body of the POST that follows (src-rust/browser/form_posts.rs).
// Pages see neither the listeners nor the handler they post to.
(function () {
  'use strict';
  if (globalThis.__sovereignFormPosts) return;
  globalThis.__sovereignFormPosts = true;
  const handlers = window.webkit && window.webkit.messageHandlers;
  const handler = handlers && handlers.sovereignForm;
  if (!handler) return;
  const post = handler.postMessage.bind(handler);
  // Bounds of one report: the browser keeps no more (FIELDS_MAX, CHARS_MAX in form_posts.rs).
  const FIELDS_MAX = 256;
  const CHARS_MAX = 64 * 1024;

  // The control that submitted the form, which the submit event names (submit() fires none).
  let submitted = null;
  window.addEventListener('submit', (event) => {
    submitted = { form: event.target, by: event.submitter || null };
  }, { capture: true });

  const crlf = (text) => text.replace(/\r\n|\r|\n/g, '\r\n');

  // The submitter's formaction, formmethod or formenctype wins over the form's own.
  const chosen = (by, attribute, own) => (by && by.hasAttribute(attribute) ? by[own] : undefined);

  // Capturing on the window, registered before any page script: no page listener can
  // stop it first. Entries a page's own formdata listener adds later are not seen.
  window.addEventListener('formdata', (event) => {
    try {
      const form = event.target;
      const by = submitted && submitted.form === form ? submitted.by : null;
      submitted = null;
      const method = chosen(by, 'formmethod', 'formMethod') || form.method;
      if (method !== 'post') return; // a GET's fields are in its address
      const fields = [];
      let chars = 0;
      let truncated = false;
      for (const [name, value] of event.formData) {
        const isFile = typeof value !== 'string';
        // Line breaks go out as CRLF, as every form encoding writes them.
        const text = isFile ? value.name : crlf(value);
        chars += name.length + text.length;
        if (fields.length >= FIELDS_MAX || chars > CHARS_MAX) {
          truncated = true;
          break;
        }
        fields.push(isFile ? [crlf(name), text, 1] : [crlf(name), text]);
      }
      post(JSON.stringify({
        action: chosen(by, 'formaction', 'formAction') || form.action,
        enctype: chosen(by, 'formenctype', 'formEnctype') || form.enctype,
        fields,
        truncated,
      }));
    } catch (_) {
      // A report is not worth a page's submission.
    }
  }, { capture: true });
})();
