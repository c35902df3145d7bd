// Recordings of agents' work (record_sessions, record_steps): the recorded
// sessions by client and time, and one session's timeline, live while it
// runs: each call with its tool, element, outcome and time; a row opens to
// its arguments, result, pages and the requests it caused. Filters: client
// (sessions), tab, tool and failures (steps).

import {
  $, h, setText, syncRows, toast, describeError, formatClock, formatFull, formatMs, shortId,
} from './dom.js';

/** Steps fetched at a time. */
const PAGE = 500;

export function initRecordings({ call, showRequests }) {
  let sessions = [];
  let open = null; // the session whose timeline is shown
  let steps = [];
  let shownStep = null;
  let seen = null; // the recordings' version last read
  const clientSelect = $('#recordings-client');
  const toolFilter = $('#timeline-tool');
  const tabSelect = $('#timeline-tab');
  const failedOnly = $('#timeline-failed');

  // ---- the sessions ---------------------------------------------------------

  function createSession() {
    const tr = h('tr');
    const button = h('button', { class: 'button small', type: 'button', dataset: { action: 'open' } }, 'Timeline');
    button.addEventListener('click', () => openSession(tr.dataset.session));
    tr.append(h('td', { class: 'client' }), h('td', { class: 'started' }), h('td', { class: 'last' }),
      h('td', { class: 'num steps' }), h('td', { class: 'num failed' }), h('td', { class: 'kept' }),
      h('td', { class: 'actions' }, button));
    return tr;
  }

  function updateSession(tr, s) {
    tr.dataset.session = s.session;
    tr.dataset.client = s.client || '';
    tr.classList.toggle('front', open === s.session);
    setText(tr.querySelector('.client'), `${s.client || 'unnamed client'} · ${shortId(s.session)}`);
    tr.querySelector('.client').title = `Session ${s.session} (${s.transport})`;
    for (const [cls, at] of [['.started', s.started], ['.last', s.last]]) {
      setText(tr.querySelector(cls), formatClock(at));
      tr.querySelector(cls).title = formatFull(at);
    }
    setText(tr.querySelector('.steps'), String(s.steps));
    setText(tr.querySelector('.failed'), String(s.failed));
    setText(tr.querySelector('.kept'), s.on_disk ? (s.cut ? 'on disk (cut: full)' : 'on disk') : 'in memory (ephemeral context)');
    tr.querySelector('[data-action="open"]').setAttribute('aria-label', `Timeline of ${s.client || 'the session'} ${shortId(s.session)}`);
  }

  function renderSessions() {
    const clients = [...new Set(sessions.map((s) => s.client || ''))].sort();
    const have = Array.from(clientSelect.options).slice(1).map((o) => o.value);
    if (have.join('\n') !== clients.join('\n')) {
      const chosen = clientSelect.value;
      clientSelect.replaceChildren(h('option', { value: '' }, 'All'),
        ...clients.map((c) => h('option', { value: c }, c || 'unnamed client')));
      clientSelect.value = clients.includes(chosen) ? chosen : '';
    }
    const shown = sessions.filter((s) => !clientSelect.value || (s.client || '') === clientSelect.value);
    syncRows($('#recorded-sessions tbody'), shown, (s) => `${s.session} ${s.on_disk}`, createSession, updateSession);
    $('#recorded-sessions').hidden = shown.length === 0;
    $('#recordings-empty').hidden = shown.length > 0;
    setText($('#recordings-count'), sessions.length ? String(sessions.length) : '');
  }

  // ---- one session's timeline -----------------------------------------------

  function matches(step) {
    const tool = toolFilter.value.trim().toLowerCase();
    if (tool && !step.tool.toLowerCase().includes(tool)) return false;
    if (tabSelect.value && String(step.tab ?? '') !== tabSelect.value) return false;
    if (failedOnly.checked && step.ok) return false;
    return true;
  }

  const elementText = (e) => (e ? `${e.role} "${e.name}"${e.ref ? ` [${e.ref}]` : ''}` : '');

  function createStep() {
    const tr = h('tr');
    const button = h('button', { class: 'link-button', type: 'button', dataset: { action: 'details' } });
    button.addEventListener('click', () => showStep(Number(tr.dataset.n)));
    tr.append(h('td', { class: 'num n' }), h('td', { class: 'shot' }), h('td', { class: 'time' }), h('td', { class: 'tool' }, button),
      h('td', { class: 'element' }), h('td', { class: 'outcome' }), h('td', { class: 'num duration' }));
    return tr;
  }

  function updateStep(tr, step) {
    tr.dataset.n = String(step.n);
    tr.dataset.tool = step.tool;
    tr.dataset.ok = String(step.ok);
    tr.dataset.tab = String(step.tab ?? '');
    tr.classList.toggle('failed', !step.ok);
    tr.classList.toggle('linked', shownStep === step.n);
    setText(tr.querySelector('.n'), String(step.n));
    setText(tr.querySelector('.time'), formatClock(step.time));
    tr.querySelector('.time').title = formatFull(step.time);
    const button = tr.querySelector('[data-action="details"]');
    setText(button, step.tool);
    button.setAttribute('aria-label', `Step ${step.n}: ${step.tool}, details`);
    setText(tr.querySelector('.element'), elementText(step.element));
    setText(tr.querySelector('.outcome'), step.ok ? 'ok' : (step.code || 'error'));
    setText(tr.querySelector('.duration'), formatMs(step.ms));
    tr.dataset.shot = String(!!step.shot);
    if (step.shot && !tr.querySelector('.shot img')) pictures.observe(tr);
  }

  // ---- pictures of the page, read as their rows come into view --------------

  const shots = new Map(); // "session n" -> data URL
  async function shotOf(session, n) {
    const key = `${session} ${n}`;
    if (!shots.has(key)) {
      shots.set(key, call('record_shot', { session, n })
        .then((r) => `data:image/jpeg;base64,${r.jpeg_base64}`)
        .catch(() => null));
    }
    return shots.get(key);
  }
  function showShot(img, url, n) {
    if (!url) return;
    img.src = url;
    img.alt = `The page after step ${n}`;
    img.hidden = false;
  }
  const pictures = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const tr = entry.target;
      pictures.unobserve(tr);
      const n = Number(tr.dataset.n);
      const session = open;
      shotOf(session, n).then((url) => {
        if (!url || open !== session || tr.querySelector('.shot img')) return;
        const img = h('img', { class: 'thumb', alt: `The page after step ${n}`, hidden: true });
        tr.querySelector('.shot').append(img);
        showShot(img, url, n);
      });
    }
  });

  function renderSteps() {
    const tabs = [...new Set(steps.map((s) => s.tab).filter((t) => t !== undefined && t !== null))].sort((a, b) => a - b);
    const have = Array.from(tabSelect.options).slice(1).map((o) => o.value);
    if (have.join() !== tabs.join()) {
      const chosen = tabSelect.value;
      tabSelect.replaceChildren(h('option', { value: '' }, 'All'),
        ...tabs.map((t) => h('option', { value: String(t) }, `tab ${t}`)));
      tabSelect.value = tabs.map(String).includes(chosen) ? chosen : '';
    }
    const shown = steps.filter(matches);
    syncRows($('#timeline tbody'), shown, (s) => s.n, createStep, updateStep);
    $('#timeline').hidden = shown.length === 0;
    const empty = $('#timeline-empty');
    empty.hidden = shown.length > 0;
    setText(empty, steps.length ? 'No step matches the filter.' : 'No step recorded yet.');
  }

  function showStep(n) {
    const step = steps.find((s) => s.n === n);
    if (!step) return;
    shownStep = n;
    const detail = $('#step-detail');
    detail.hidden = false;
    setText($('#step-detail-title'), `Step ${step.n}: ${step.tool}`);
    const page = (p) => (p ? `${p.title || '(untitled)'} — ${p.url}` : '—');
    const lines = [
      `${step.ok ? 'ok' : `${step.code}: ${step.message || ''}`} · ${formatMs(step.ms)} · ${formatFull(step.time)}`,
      `context ${step.context || '—'} · tab ${step.tab ?? '—'}`,
      `element: ${elementText(step.element) || '—'}`,
      `before: ${page(step.before)}`,
      `after:  ${page(step.after)}`,
      '',
      'Arguments', JSON.stringify(step.args, null, 2),
      '',
      'Result', step.ok ? JSON.stringify(step.result, null, 2) : '—',
    ];
    setText($('#step-detail-body'), lines.join('\n'));
    const img = $('#step-shot');
    img.hidden = true;
    img.removeAttribute('src');
    if (step.shot) shotOf(open, step.n).then((url) => { if (shownStep === step.n) showShot(img, url, step.n); });
    const requests = $('#step-requests');
    requests.hidden = !step.requests;
    if (step.requests) {
      const count = step.requests.last - step.requests.first + 1;
      setText(requests, count === 1 ? 'Its 1 request' : `Its ${count} requests`);
    }
    renderSteps();
  }

  $('#step-requests').addEventListener('click', () => {
    const step = steps.find((s) => s.n === shownStep);
    if (step && step.requests) {
      showRequests({ id: step.requests.tab }, { first: step.requests.first, last: step.requests.last });
    }
  });
  $('#step-detail-close').addEventListener('click', () => {
    shownStep = null;
    $('#step-detail').hidden = true;
    renderSteps();
  });

  // One reading at a time: a change heard while the session opens would
  // otherwise read the same steps twice. A call meanwhile reads once more after it.
  let reading = null;
  let readAgain = false;
  function loadSteps() {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        await readNewSteps();
      } while (readAgain);
      reading = null;
    })();
    return reading;
  }

  async function readNewSteps() {
    if (!open) return;
    const session = open;
    const last = () => (steps.length ? steps[steps.length - 1].n : 0);
    try {
      for (;;) {
        const more = (await call('record_steps', { session, after: last(), limit: PAGE })).steps || [];
        if (open !== session) return;
        const after = last();
        steps.push(...more.filter((step) => step.n > after));
        if (more.length < PAGE) break;
      }
      renderSteps();
    } catch (error) {
      toast(`Could not read the timeline: ${describeError(error)}`, 'error');
    }
  }

  function openSession(session) {
    open = session;
    steps = [];
    shownStep = null;
    $('#step-detail').hidden = true;
    const s = sessions.find((x) => x.session === session);
    setText($('#timeline-heading'), `Timeline of ${s && s.client ? s.client : 'a session'} · ${shortId(session)}`);
    $('#timeline-section').hidden = false;
    renderSessions();
    loadSteps();
  }

  async function load() {
    try {
      const listed = await call('record_sessions', {});
      sessions = listed.sessions || [];
      const disk = listed.disk;
      const mb = (bytes) => (bytes / 1048576).toFixed(1);
      setText($('#recordings-disk'), !listed.recording ? 'Recording is off (--no-record)'
        : disk ? `${mb(disk.bytes)} of ${mb(disk.max_bytes)} MB on disk` : 'In memory only');
      renderSessions();
      if (open && !sessions.some((s) => s.session === open)) {
        open = null;
        $('#timeline-section').hidden = true;
      }
      await loadSteps();
    } catch (error) {
      if (error.code !== 'UNKNOWN_TOOL') toast(`Could not read the recordings: ${describeError(error)}`, 'error');
    }
  }

  // The open session as a flow to replay, or a Playwright test, in the files folder.
  for (const [id, format, what] of [['#timeline-export-flow', 'flow', 'flow'], ['#timeline-export-playwright', 'playwright', 'Playwright test']]) {
    $(id).addEventListener('click', async () => {
      if (!open) return;
      try {
        const saved = await call('record_export', { session: open, format });
        toast(`Saved the ${what} (${saved.steps} steps) to ${saved.path}`, 'ok');
      } catch (error) {
        toast(`Could not export the session: ${describeError(error)}`, 'error');
      }
    });
  }

  clientSelect.addEventListener('change', renderSessions);
  for (const input of [toolFilter, tabSelect, failedOnly]) {
    input.addEventListener(input === toolFilter ? 'input' : 'change', renderSteps);
  }
  $('#recordings-clear').addEventListener('click', async () => {
    // eslint-disable-next-line no-alert
    if (!window.confirm('Forget every recording, on disk too?')) return;
    try {
      await call('record_clear', {});
      steps = [];
      toast('The recordings were cleared', 'ok');
    } catch (error) {
      toast(`Could not clear the recordings: ${describeError(error)}`, 'error');
    }
  });

  return {
    /** A state push: read the recordings again when they changed. */
    render(state) {
      if (state.record_version === seen) return;
      seen = state.record_version;
      load();
    },
    reconnected() {
      seen = null;
    },
  };
}
