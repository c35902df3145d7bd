// One tab's requests, live: the browser pushes the watched tab's newest
// requests (`requests` events) while this view is open; a row opens the
// request's headers and body. The tabs table and the call log open it.

import { $, h, setText, syncRows, describeError } from './dom.js';

const BODY_CHARS = 4000;

function formatSize(bytes) {
  if (bytes === undefined || bytes === null) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function outcome(request) {
  if (request.failure) return { text: request.status ? `${request.status} · ${request.failure}` : request.failure, failed: true };
  if (request.pending) return { text: 'pending', failed: false };
  return { text: String(request.status ?? ''), failed: request.status >= 400 };
}

export function initNetwork({ call }) {
  const section = $('#requests-section');
  const tbody = $('#requests tbody');
  const filter = $('#requests-filter');
  const failedOnly = $('#requests-failed');
  const note = $('#requests-note');
  const detail = $('#request-detail');
  let watched = null; // { id, index } of the tab shown
  let requests = [];
  let highlight = null; // { first, last } ids a call-log link asked for
  let open = null; // the id whose details are shown

  function show(text) {
    setText(note, text || '');
    note.hidden = !text;
  }

  function matches(request) {
    const text = filter.value.trim().toLowerCase();
    if (text && !request.url.toLowerCase().includes(text)) return false;
    if (failedOnly.checked && !outcome(request).failed) return false;
    return true;
  }

  function create(request) {
    const tr = h('tr', { dataset: { requestId: String(request.id) } });
    const button = h('button', { class: 'link-button', type: 'button', dataset: { action: 'details' } });
    button.addEventListener('click', () => details(Number(tr.dataset.requestId)));
    tr.append(
      h('td', { class: 'num id' }),
      h('td', { class: 'method' }),
      h('td', { class: 'url' }, button),
      h('td', { class: 'type' }),
      h('td', { class: 'status' }),
      h('td', { class: 'num size' }),
      h('td', { class: 'num ms' }));
    return tr;
  }

  function update(tr, request) {
    const { text, failed } = outcome(request);
    tr.classList.toggle('failed', failed);
    tr.classList.toggle('linked', !!highlight && request.id >= highlight.first && request.id <= highlight.last);
    tr.dataset.status = String(request.status ?? '');
    tr.dataset.failed = String(failed);
    setText(tr.querySelector('.id'), String(request.id));
    setText(tr.querySelector('.method'), request.method);
    const button = tr.querySelector('[data-action="details"]');
    setText(button, request.url);
    button.title = request.url;
    button.setAttribute('aria-label', `Details of request ${request.id}: ${request.method} ${request.url}`);
    setText(tr.querySelector('.type'), request.type);
    setText(tr.querySelector('.status'), text);
    setText(tr.querySelector('.size'), formatSize(request.size));
    setText(tr.querySelector('.ms'), request.ms === undefined ? '' : `${Math.round(request.ms)} ms`);
  }

  function render() {
    const shown = requests.filter(matches);
    syncRows(tbody, shown, (r) => r.id, create, update);
    $('#requests').hidden = shown.length === 0;
    const empty = $('#requests-empty');
    empty.hidden = shown.length > 0;
    setText(empty, requests.length ? 'No request matches the filter.' : 'No request yet.');
    setText($('#requests-count'), requests.length === shown.length ? String(requests.length) : `${shown.length} of ${requests.length}`);
  }

  async function details(id) {
    open = id;
    detail.hidden = false;
    setText($('#request-detail-title'), `Request ${id}`);
    const body = $('#request-detail-body');
    setText(body, 'Loading…');
    try {
      const r = await call('network_request', { tab: watched.id, id, max_chars: BODY_CHARS });
      if (open !== id) return;
      const lines = [`${r.method} ${r.url}`, `type ${r.type} · status ${r.status ?? '—'}${r.failure ? ` · ${r.failure}` : ''}`];
      const headers = (title, map) => [title, ...Object.entries(map || {}).map(([k, v]) => `  ${k}: ${v}`)];
      lines.push('', ...headers('Request headers', r.request_headers), '', ...headers('Response headers', r.response_headers), '');
      if (typeof r.body === 'string') lines.push('Body', r.body);
      if (r.body_path) lines.push(`Body saved to ${r.body_path} (${formatSize(r.body_bytes)})`);
      if (r.body_note) lines.push(`(${r.body_note})`);
      setText(body, lines.join('\n'));
    } catch (error) {
      if (open !== id) return;
      setText(body, error.code === 'NOT_LOGGED_IN'
        ? 'Log in first: a request\'s headers and body are shown once an identity is logged in.'
        : `Could not read the request: ${describeError(error)}`);
    }
  }

  /** Tabs of agents' contexts have indexes of their own windows: say which. */
  function heading(tab) {
    return tab.own === false ? `Requests of tab ${tab.index} in context ${tab.context}` : `Requests of tab ${tab.index}`;
  }

  async function watch(tab, range = null) {
    watched = tab;
    highlight = range;
    requests = [];
    open = null;
    detail.hidden = true;
    section.hidden = false;
    setText($('#requests-heading'), heading(tab));
    show('');
    render();
    try {
      await call('network_watch', { id: tab.id });
    } catch (error) {
      show(`Cannot show this tab's requests: ${describeError(error)}`);
    }
    section.scrollIntoView({ block: 'start' });
  }

  async function close() {
    watched = null;
    section.hidden = true;
    try {
      await call('network_watch', {});
    } catch {
      // The connection is gone: nothing is watched any more anyway.
    }
  }

  filter.addEventListener('input', render);
  failedOnly.addEventListener('change', render);
  $('#requests-close').addEventListener('click', close);
  $('#requests-har').addEventListener('click', async () => {
    if (!watched) return;
    try {
      const saved = await call('network_har', { tab: watched.id, all: true });
      show(`Saved ${saved.entries} requests as HAR to ${saved.path}`);
    } catch (error) {
      show(`Could not export the requests: ${describeError(error)}`);
    }
  });
  $('#request-detail-close').addEventListener('click', () => {
    open = null;
    detail.hidden = true;
  });

  return {
    watch,
    /** A push: the watched tab's newest requests. */
    update(data) {
      if (!watched || !data || data.tab !== watched.id) return;
      if (data.closed) show('This tab was closed.');
      requests = Array.isArray(data.requests) ? data.requests : [];
      render();
      if (highlight) {
        const first = tbody.querySelector('tr.linked');
        if (first) first.scrollIntoView({ block: 'nearest' });
      }
    },
    /** The tab's index changes when tabs before it close. */
    tabs(list) {
      if (!watched) return;
      const tab = (list || []).find((t) => t.id === watched.id);
      if (tab) {
        watched.index = tab.index;
        setText($('#requests-heading'), heading(watched));
      }
    },
    /** After a reconnection the browser watches nothing: ask again. */
    reconnected() {
      if (watched) call('network_watch', { id: watched.id }).catch(() => {});
    },
  };
}
