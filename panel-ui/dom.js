// Small DOM and formatting helpers shared by the panel modules.

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

/**
 * Creates an element. attrs: `class`, `text`, `dataset` (object), `on`
 * (object of event handlers), booleans (true sets the attribute, false or
 * null skips it) and plain attributes.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'on') for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Sets text only when it changed (keeps selections and avoids layout churn). */
export function setText(el, text) {
  const value = text === null || text === undefined ? '' : String(text);
  if (el.textContent !== value) el.textContent = value;
}

/**
 * Keeps the rows of `tbody` in step with `items`, reusing the row of each key
 * so focus stays on a button that is still there.
 * create(item) -> <tr>; update(tr, item) refreshes it.
 */
export function syncRows(tbody, items, key, create, update) {
  const existing = new Map();
  for (const tr of Array.from(tbody.children)) existing.set(tr.dataset.key, tr);
  const focused = document.activeElement;
  let before = tbody.firstElementChild;
  for (const item of items) {
    const k = String(key(item));
    let tr = existing.get(k);
    if (tr) existing.delete(k);
    else {
      tr = create(item);
      tr.dataset.key = k;
    }
    update(tr, item);
    if (tr !== before) tbody.insertBefore(tr, before);
    else before = before.nextElementSibling;
  }
  for (const tr of existing.values()) {
    const hadFocus = tr.contains(focused);
    tr.remove();
    if (hadFocus) {
      // The focused row went away (a tab closed, a session ended): keep focus in the section.
      const heading = tbody.closest('section')?.querySelector('h2');
      if (heading) {
        heading.tabIndex = -1;
        heading.focus();
      }
    }
  }
}

/**
 * Puts a small marker (class `cls`, text `text`) first in `parent` when `on`,
 * and takes it out otherwise (not just hidden: its text must not linger).
 */
export function togglePill(parent, cls, text, on, { append = false } = {}) {
  let pill = parent.querySelector(`:scope > .${cls}`);
  if (on && !pill) {
    pill = h('span', { class: cls }, text);
    if (append) parent.append(pill);
    else parent.prepend(pill);
  } else if (!on && pill) {
    pill.remove();
  }
}

/** Shows the "empty" note of a table when it has no rows. */
export function toggleEmpty(tableId, empty) {
  const table = document.getElementById(tableId);
  const note = document.querySelector(`[data-empty-for="${tableId}"]`);
  table.hidden = empty;
  if (note) note.hidden = !empty;
}

// ---- formatting -----------------------------------------------------------

const pad = (n, width = 2) => String(n).padStart(width, '0');

function sameDay(a, b) {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** Local time "14:03:22", with the date in front when it is not today. */
export function formatTime(ms) {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (sameDay(d, new Date())) return time;
  return `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

/** Local time with milliseconds, for the call log. */
export function formatClock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Full local date and time, for tooltips. */
export function formatFull(ms) {
  return new Date(ms).toLocaleString();
}

/** "just now", "12 s ago", "4 min ago", "2 h ago". */
export function formatAgo(ms) {
  if (!Number.isFinite(ms)) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 2) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs} h ago`;
  return `${Math.floor(hrs / 24)} d ago`;
}

/** Milliseconds: "0.4 ms", "12.3 ms", "845 ms", "12 034 ms". */
export function formatMs(ms) {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms).toLocaleString()} ms`;
}

/** npub1abcdefg…uvwxyz */
export function shortNpub(npub) {
  if (!npub || npub.length <= 22) return npub || '';
  return `${npub.slice(0, 12)}…${npub.slice(-6)}`;
}

export function shortId(id) {
  return id ? String(id).slice(0, 8) : '';
}

export const METHOD_LABELS = {
  local: 'Private key',
  seed: 'Seed words',
  readonly: 'Read-only',
  nip46: 'Remote signer',
  nsigner: 'Hardware signer',
};

export function methodLabel(method) {
  return METHOD_LABELS[method] || method || '';
}

// ---- clipboard and toasts -------------------------------------------------

/** Copies text; falls back to a hidden textarea where the Clipboard API is missing. */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const area = h('textarea', { class: 'clipboard-helper', readonly: true, 'aria-hidden': 'true' });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand('copy');
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

/** Copies and says so on the button for a moment. */
export async function copyWithFeedback(button, text) {
  const done = await copyText(text);
  const original = button.dataset.label || button.textContent;
  button.dataset.label = original;
  button.textContent = done ? 'Copied' : 'Copy failed';
  button.classList.add(done ? 'copied' : 'copy-failed');
  clearTimeout(Number(button.dataset.timer));
  button.dataset.timer = String(setTimeout(() => {
    button.textContent = original;
    button.classList.remove('copied', 'copy-failed');
  }, 1500));
  if (!done) toast('Could not copy: select the text and copy it by hand.', 'error');
}

/** A short message in the corner. kind: info | ok | error */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  if (!box) return;
  const item = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
  box.append(item);
  setTimeout(() => item.classList.add('leaving'), kind === 'error' ? 6000 : 3500);
  setTimeout(() => item.remove(), kind === 'error' ? 6400 : 3900);
}

/** A readable line for a failed call: "CODE: message". */
export function describeError(error) {
  if (!error) return 'Unknown error';
  if (error.code && error.message) return `${error.code}: ${error.message}`;
  return error.message || error.code || String(error);
}
