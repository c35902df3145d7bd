// Forms of every shape a site uses, each submitted the four ways a page can
// be (a click, Enter, submit(), requestSubmit()): the browser stays up, the
// server gets what the form holds, and the network log shows the body the
// form sent. Regression: a form post without a text field (hidden fields,
// checkboxes, a textarea, none at all) ended the whole browser with
// SIGSEGV inside WebKit's list of a form's text fields.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startLoggedIn } from './support/session.mjs';
import { withBrowserLog } from './support/browser.mjs';
import { callJson } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

const MANY = 5000;
/** Entries the network log keeps of one form (FIELDS_MAX in form_posts.rs). */
const LOG_FIELDS_MAX = 256;

/** A page holding `body`, with `script` run at its start. */
const page = (title, body, script = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>` +
  `${script ? `<script>${script}</script>` : ''}</head><body>${body}</body></html>`;

/**
 * The corpus: each shape's form, what Enter is pressed in (a field that
 * submits implicitly, else the submit button), and what each way sends:
 * { method, entries: [[name, value]...], file?: names sent as files }.
 * `submit()` honours no submitter's formaction and sends no submitter.
 */
const SHAPES = {
  empty: {
    form: (c) => `<form method="post" action="/done?case=${c}"><button id="go">Go</button></form>`,
    sends: () => ({ method: 'POST', entries: [] }),
  },
  hidden: {
    form: (c) => `<form method="post" action="/done?case=${c}"><input type="hidden" name="room" value="x">` +
      '<input type="hidden" name="csrf" value="t0k&n=1"><button id="go" type="submit">Go</button></form>',
    sends: () => ({ method: 'POST', entries: [['room', 'x'], ['csrf', 't0k&n=1']] }),
  },
  choices: {
    form: (c) => `<form method="post" action="/done?case=${c}">` +
      '<input type="checkbox" name="breakfast" value="yes" checked><input type="checkbox" name="late" value="yes">' +
      '<input type="radio" name="bed" value="single"><input type="radio" name="bed" value="double" checked>' +
      '<button id="go">Book</button></form>',
    sends: () => ({ method: 'POST', entries: [['breakfast', 'yes'], ['bed', 'double']] }),
  },
  textarea: {
    form: (c) => `<form method="post" action="/done?case=${c}"><textarea name="note">two\nlines é</textarea>` +
      '<button id="go">Send</button></form>',
    sends: () => ({ method: 'POST', entries: [['note', 'two\r\nlines é']] }),
  },
  // The booking dialog that found the crash: hidden, two checkboxes, a textarea.
  booking: {
    form: (c) => `<dialog open><form method="post" action="/done?case=${c}"><input type="hidden" name="room" value="12">` +
      '<label><input type="checkbox" name="sea" checked> Sea view</label><label><input type="checkbox" name="quiet"> Quiet</label>' +
      '<textarea name="wishes"></textarea><button id="go">Book</button></form></dialog>',
    sends: () => ({ method: 'POST', entries: [['room', '12'], ['sea', 'on'], ['wishes', '']] }),
  },
  text: {
    form: (c) => `<form method="post" action="/done?case=${c}"><input id="enter" name="who" value="Ada Lovelace">` +
      '<button id="go">Go</button></form>',
    enter: '#enter',
    sends: () => ({ method: 'POST', entries: [['who', 'Ada Lovelace']] }),
  },
  file: {
    form: (c) => `<form method="post" enctype="multipart/form-data" action="/done?case=${c}">` +
      '<input type="hidden" name="kind" value="cv"><input type="file" name="cv"><button id="go">Upload</button></form>',
    sends: () => ({ method: 'POST', entries: [['kind', 'cv'], ['cv', '']], file: ['cv'] }),
  },
  textplain: {
    form: (c) => `<form method="post" enctype="text/plain" action="/done?case=${c}">` +
      '<input type="hidden" name="a" value="one"><button id="go">Go</button></form>',
    sends: () => ({ method: 'POST', entries: [['a', 'one']] }),
  },
  get: {
    form: (c) => `<form action="/done"><input type="hidden" name="case" value="${c}">` +
      '<input type="checkbox" name="x" value="1" checked><button id="go">Search</button></form>',
    sends: (c) => ({ method: 'GET', entries: [['case', c], ['x', '1']] }),
  },
  // Several submit buttons: the one used says where and how the form goes.
  formaction: {
    form: (c) => `<form action="/done"><input type="hidden" name="case" value="${c}-own">` +
      `<button name="pick" value="first">First</button>` +
      `<button id="go" name="pick" value="second" formaction="/done?case=${c}" formmethod="post">Second</button></form>`,
    sends: (c, way) => (way === 'submit'
      ? { method: 'GET', entries: [['case', `${c}-own`]] }
      : { method: 'POST', entries: [['case', `${c}-own`], ['pick', 'second']] }),
  },
  // Controls that belong to the form from outside it.
  outside: {
    form: (c) => `<input type="hidden" form="f" name="before" value="b"><form id="f" method="post" action="/done?case=${c}"></form>` +
      '<textarea form="f" name="after">a</textarea><button form="f" id="go">Go</button>',
    sends: () => ({ method: 'POST', entries: [['before', 'b'], ['after', 'a']] }),
  },
  many: {
    form: (c) => `<form method="post" action="/done?case=${c}">` +
      Array.from({ length: MANY }, (_, i) => `<input type="hidden" name="f${i}" value="v${i}">`).join('') +
      '<button id="go">Go</button></form>',
    sends: () => ({ method: 'POST', entries: Array.from({ length: MANY }, (_, i) => [`f${i}`, `v${i}`]) }),
  },
};

const WAYS = {
  click: async (call, shape) => call('click', { selector: '#go' }),
  enter: async (call, shape) => {
    await call('focus', { selector: shape.enter ?? '#go' });
    await call('press', { key: 'Enter' });
  },
  submit: async (call) => call('eval', { script: "(document.getElementById('go').form).submit(); 1" }),
  requestSubmit: async (call) =>
    call('eval', { script: "const go = document.getElementById('go'); go.form.requestSubmit(go); 1" }),
};

/** A form body's entries as the server got them: [[name, value or file name]...]. */
function entriesOf(type = '', body = '') {
  if (type.startsWith('multipart/form-data')) {
    const boundary = type.match(/boundary=(.+)$/)[1];
    return body.split(`--${boundary}`).slice(1, -1).map((part) => {
      const [head, ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
      const name = head.match(/name="([^"]*)"/)[1];
      const file = head.match(/filename="([^"]*)"/);
      return [name, file ? file[1] : rest.join('\r\n\r\n').replace(/\r\n$/, '')];
    });
  }
  if (type.startsWith('text/plain')) {
    return body.split('\r\n').filter(Boolean).map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)];
    });
  }
  return [...new URLSearchParams(body)];
}

/** The site: /form/NAME?case=ID serves a shape; /done records what it got. */
async function startSite() {
  const got = [];
  let frameOrigin = '';
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://site.invalid');
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const html = (body) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(body);
      };
      const c = u.searchParams.get('case') ?? '';
      if (u.pathname === '/done') {
        const body = Buffer.concat(chunks).toString('utf8');
        got.push({ method: req.method, case: c, type: req.headers['content-type'], body, query: u.search });
        const slow = u.searchParams.get('slow') ? 1500 : 0;
        setTimeout(() => html(page('Done', `<p id="done">${c}</p>`)), slow);
        return;
      }
      const shape = SHAPES[u.pathname.slice('/form/'.length)];
      if (shape) return html(page('Form', shape.form(c)));
      if (u.pathname === '/framed') {
        // A page of this origin holding a form of another origin in a frame.
        return html(page('Framed', `<iframe id="inner" src="${frameOrigin}/form/hidden?case=${c}"></iframe>`));
      }
      if (u.pathname === '/away') {
        // The page leaves as its form is submitted, while the post is on its way.
        const script = "addEventListener('formdata', () => setTimeout(() => { location.href = '/left'; }, 50));";
        return html(page('Away', SHAPES.hidden.form(`${c}&slow=1`), script));
      }
      if (u.pathname === '/left') return html(page('Left', '<p id="left">left</p>'));
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  frameOrigin = `http://localhost:${port}`;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    got: (c) => got.find((g) => g.case === c),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

describe('forms', { timeout: 600_000 }, () => {
  let session;
  let site;
  const call = (tool, args = {}) => callJson(session.mcp, tool, args);
  const logged = (fn) => withBrowserLog(() => session?.browser, fn);

  before(async () => {
    session = await startLoggedIn();
    site = await startSite();
  }, { timeout: 90_000 });
  after(async () => {
    await session?.stop();
    await site?.close();
  });

  /** Fails at once when the browser process has ended, with how it ended. */
  async function assertUp(what) {
    const ended = await Promise.race([session.browser.exited, new Promise((r) => setImmediate(() => r(null)))]);
    assert.equal(ended, null, `the browser ended (${JSON.stringify(ended)}) after ${what}`);
  }

  /** The POST to /done?case=C in the tab's network log, read back. */
  async function loggedPost(c) {
    const listed = await waitFor(async () => {
      const { requests } = await call('network_requests', { all: true, limit: 1000 });
      return requests.find((r) => r.method === 'POST' && r.url.includes(`/done?case=${c}`) && !r.pending);
    }, `the post of ${c} in the network log`);
    return call('network_request', { id: listed.id });
  }

  for (const [name, shape] of Object.entries(SHAPES)) {
    for (const [way, act] of Object.entries(WAYS)) {
      it(`${name}, by ${way}`, { timeout: 60_000 }, logged(async () => {
        const c = `${name}-${way}`;
        await call('open', { url: site.url(`/form/${name}?case=${c}`) });
        await act(call, shape);
        const expected = shape.sends(c, way);
        const got = await waitFor(() => site.got(expected.method === 'GET' && name === 'formaction' ? `${c}-own` : c),
          `the site to get the ${name} form`);
        await assertUp(`submitting ${c}`);
        assert.equal(got.method, expected.method);
        const entries = got.method === 'GET' ? [...new URLSearchParams(got.query)] : entriesOf(got.type, got.body);
        assert.deepEqual(entries, expected.entries, 'the site got what the form holds');
        await waitFor(async () => (await call('get_title')).title === 'Done', 'the page the form led to');
        if (got.method !== 'POST') return;
        const post = await loggedPost(c);
        const shown = [...new URLSearchParams(post.request_body)];
        if (name === 'many') {
          assert.deepEqual(shown, expected.entries.slice(0, LOG_FIELDS_MAX), 'the log keeps the first entries');
          assert.match(post.request_body_note, /more entries than the log keeps/);
        } else {
          assert.deepEqual(shown, expected.entries, `the log shows the body: ${JSON.stringify(post).slice(0, 400)}`);
        }
        if (expected.file) assert.match(post.request_body_note, /multipart\/form-data; files by name/);
      }));
    }
  }

  it('a form in a frame of another origin posts, and its post is logged', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: site.url('/framed?case=framed') });
    await waitFor(async () => (await call('network_requests', { all: true })).requests
      .some((r) => r.url.includes('/form/hidden?case=framed') && !r.pending), 'the frame to load');
    await call('frame_switch', { selector: '#inner' });
    await waitFor(async () => (await call('get_count', { selector: '#go' })).count === 1, 'the frame\'s form');
    await call('click', { selector: '#go' });
    const got = await waitFor(() => site.got('framed'), 'the frame\'s post');
    await assertUp('a post from a frame');
    assert.deepEqual(entriesOf(got.type, got.body), [['room', 'x'], ['csrf', 't0k&n=1']]);
    const post = await loggedPost('framed');
    assert.equal(post.type, 'frame');
    assert.deepEqual([...new URLSearchParams(post.request_body)], [['room', 'x'], ['csrf', 't0k&n=1']]);
    await call('frame_main');
  }));

  it('a page that leaves while its post is on the way', { timeout: 60_000 }, logged(async () => {
    for (const way of Object.keys(WAYS)) {
      const c = `away-${way}`;
      await call('open', { url: site.url(`/away?case=${c}`) });
      await WAYS[way](call, SHAPES.hidden);
      await waitFor(() => site.got(c), `the post of ${c}`);
      await waitFor(async () => /\/(left|done)/.test((await call('get_url')).url), 'the page to move on');
      await assertUp(`leaving during ${c}`);
    }
    assert.equal((await call('eval', { script: '6 * 7' })).value, 42, 'the tab still answers');
  }));
});
