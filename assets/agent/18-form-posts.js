  // Form posts: what each submitted form sends, for the body of its POST in the network log.

  // ---------------------------------------------------------------------------------------
  // Form posts
  //
  // WebKit hands the browser no body of a form's submission, so this tells it what each
  // form of the document sends as it is submitted: the address, the encoding and the entry
  // list, read from the `formdata` event that every submission fires (a click, Enter in a
  // field, submit(), requestSubmit()). The browser shows them as the body of the POST that
  // follows (src-rust/browser/tab/form_posts.rs). A form that holds a secret (a password field
  // with text in it) is reported with its entries' names only: its
  // values never leave the page's process for the browser, so no agent can read them back.
  // Pages see neither the listeners nor the handler they post to.

  const formHandler = (() => {
    const handlers = window.webkit && window.webkit.messageHandlers;
    return handlers ? handlers.sovereignForm : undefined;
  })();
  // Bounds of one report: the browser keeps no more (FIELDS_MAX, CHARS_MAX in form_posts.rs).
  const FORM_FIELDS_MAX = 256;
  const FORM_CHARS_MAX = 64 * 1024;

  // The control that submitted the form, which the submit event names (submit() fires none).
  let formSubmitted = null;

  const crlf = (text) => text.replace(/\r\n|\r|\n/g, '\r\n');

  // The submitter's formaction, formmethod or formenctype wins over the form's own.
  const chosenBy = (by, attribute, own) => (by && by.hasAttribute(attribute) ? by[own] : undefined);

  // Whether the form sends a secret: one of its fields is a password field with text in it.
  function formHoldsSecret(form) {
    for (const el of form.elements) {
      if (isPassword(el) && el.value !== '') return true;
    }
    return false;
  }

  function reportForm(event) {
    try {
      const form = event.target;
      const by = formSubmitted && formSubmitted.form === form ? formSubmitted.by : null;
      formSubmitted = null;
      const method = chosenBy(by, 'formmethod', 'formMethod') || form.method;
      if (method !== 'post') return; // a GET's fields are in its address
      const secret = formHoldsSecret(form);
      const fields = [];
      let chars = 0;
      let truncated = false;
      for (const [name, value] of event.formData) {
        const isFile = typeof value !== 'string';
        // Line breaks go out as CRLF, as every form encoding writes them.
        const text = secret ? '' : isFile ? value.name : crlf(value);
        chars += name.length + text.length;
        if (fields.length >= FORM_FIELDS_MAX || chars > FORM_CHARS_MAX) {
          truncated = true;
          break;
        }
        fields.push(isFile ? [crlf(name), text, 1] : [crlf(name), text]);
      }
      formHandler.postMessage(JSON.stringify({
        action: chosenBy(by, 'formaction', 'formAction') || form.action,
        enctype: chosenBy(by, 'formenctype', 'formEnctype') || form.enctype,
        fields,
        truncated,
        secret,
      }));
    } catch (_) {
      // A report is not worth a page's submission.
    }
  }

  // Capturing on the window, registered at document start before any page script: no page
  // listener can stop it first. Entries a page's own formdata listener adds later are not seen.
  if (formHandler) {
    window.addEventListener('submit', (event) => {
      formSubmitted = { form: event.target, by: event.submitter || null };
    }, { capture: true });
    window.addEventListener('formdata', reportForm, { capture: true });
  }
