  // The person's typing while an agent's request (ask_person) waits: fields agents may not read.

  // ---------------------------------------------------------------------------------------
  // Fields the person typed into during an ask
  //
  // While an agent's request waits on a tab, agents' tools on it answer PAUSED, so trusted
  // input its documents receive is the person's. Each form field that receives such input
  // is asked about here: the browser answers "asked" while a request waits on this tab (or a
  // tab related to it), and the field is then the person's for the rest of the document's
  // life. Reads that would show its value refuse (NOT_ALLOWED), it takes no agent's fill,
  // type or select, and its text cannot be copied, cut or dragged out of it; agents can
  // still click, focus and submit. The mark is a property of the field's wrapper in this
  // world, which is one per node across frames, so a parent frame's agent walking into a
  // same-origin frame sees it too; the set keeps the wrappers, and with them the marks, alive.

  const PERSON_TYPED = '__sovereignPersonTyped';
  // A field the browser filled with a secret from the person's vault: the person's too.
  const VAULT_FILLED = '__sovereignVaultFilled';
  // What a snapshot shows for its value.
  const PERSON_TYPED_SHOWN = '(typed by the person; hidden from agents)';
  const VAULT_FILLED_SHOWN = '(filled from the person\'s vault; hidden from agents)';
  // At most this many fields are kept one by one; past it, every field of the document is
  // the person's (a page cannot make the browser keep a field per keystroke without end).
  const PERSON_TYPED_MAX = 1000;
  const personTyped = new Set();
  const typedHandler = (() => {
    const handlers = window.webkit && window.webkit.messageHandlers;
    return handlers ? handlers.sovereignTyped : undefined;
  })();

  // Input types that hold no text or choice of the person's.
  const NOT_PERSONS_INPUT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'hidden']);

  function isFormField(el) {
    if (!el || el.nodeType !== ELEMENT_NODE) return false;
    if (el.localName === 'input') return !NOT_PERSONS_INPUT.has(el.type);
    return el.localName === 'textarea' || el.localName === 'select';
  }

  function isPersonTyped(el) {
    if (!isFormField(el)) return false;
    return el[PERSON_TYPED] === true || el[VAULT_FILLED] === true ||
      (el.ownerDocument && el.ownerDocument[PERSON_TYPED] === true);
  }

  // Whether el holds a vault's secret and nothing the person typed.
  function isVaultFilledOnly(el) {
    return isFormField(el) && el[VAULT_FILLED] === true && el[PERSON_TYPED] !== true &&
      !(el.ownerDocument && el.ownerDocument[PERSON_TYPED] === true);
  }

  // What a snapshot shows for such a field's value.
  function personTypedShown(el) {
    return el[VAULT_FILLED] === true ? VAULT_FILLED_SHOWN : PERSON_TYPED_SHOWN;
  }

  // Whether el is such a field or holds one (in its subtree: an attribute a page mirrors the
  // value into would show in its HTML).
  function holdsPersonTyped(el) {
    if (isPersonTyped(el)) return true;
    if (!el.querySelectorAll) return false;
    for (const field of el.querySelectorAll('input, textarea, select')) {
      if (isPersonTyped(field)) return true;
    }
    return false;
  }

  function personTypedError(what, vault) {
    if (vault) {
      return fail('NOT_ALLOWED',
        `this field holds a secret the browser filled from the person's vault: agents may not ${what} ` +
        'until the page is left (clicking and submitting still work)');
    }
    return fail('NOT_ALLOWED',
      `the person typed into this field while an agent's request (ask_person) waited: agents may not ${what} ` +
      'until the page is left (clicking and submitting still work)');
  }

  // Throws when el is (or, with `within`, holds) a field the person typed into.
  function refusePersonTyped(el, what, within) {
    if (within ? holdsPersonTyped(el) : isPersonTyped(el)) throw personTypedError(what, isVaultFilledOnly(el));
  }

  function markPersonTyped(el) {
    markField(el, PERSON_TYPED);
  }

  // A field the browser just filled from the vault (bounded with the person's fields).
  function markVaultFilled(el) {
    markField(el, VAULT_FILLED);
  }

  // Draws a field that takes a vault's secret as dots, as a password field is drawn (its
  // user name and one-time code too). The page's own rules cannot undo it: an inline
  // declaration marked important outranks theirs; only the page's own script could, and a
  // page on the entry's site reads the value anyway.
  function maskVaultFilled(el) {
    el.style.setProperty('-webkit-text-security', 'disc', 'important');
  }

  // Marks el with `mark` for the rest of its document's life; past the bound, the whole
  // document is the person's.
  function markField(el, mark) {
    if (personTyped.size >= PERSON_TYPED_MAX) {
      Object.defineProperty(el.ownerDocument, PERSON_TYPED, { value: true, configurable: false });
      return;
    }
    if (el[mark] !== true) Object.defineProperty(el, mark, { value: true, configurable: false });
    personTyped.add(el);
  }

  function notePersonTyped(event) {
    if (!event.isTrusted || !typedHandler) return;
    const path = event.composedPath();
    const el = path.length ? path[0] : event.target;
    if (!isFormField(el) || isPersonTyped(el)) return;
    // Typing into a password field, whoever types, withholds what the page sends from then on.
    typedHandler.postMessage(isPassword(el) ? 'typed-password' : 'typed').then((answer) => {
      if (answer === 'asked') markPersonTyped(el);
    }, () => {});
  }

  // Its text does not leave the field by the clipboard or a drag.
  function keepPersonTyped(event) {
    const path = event.composedPath();
    if (path.length && isPersonTyped(path[0])) event.preventDefault();
  }

  // Registered at document start, capturing on the window: before any page listener.
  for (const type of ['input', 'change']) window.addEventListener(type, notePersonTyped, { capture: true });
  for (const type of ['copy', 'cut', 'dragstart']) window.addEventListener(type, keepPersonTyped, { capture: true });
