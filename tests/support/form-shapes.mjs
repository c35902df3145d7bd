// The corpus of form shapes a site uses, the four ways a page submits one,
// and a loopback site that serves the shapes and records what each post
// sent: for tests/forms.test.mjs and the soak (bench/soak.mjs).
import http from 'node:http';

export const MANY = 5000;
/** Entries the network log keeps of one form (FIELDS_MAX in form_posts.rs). */
export const LOG_FIELDS_MAX = 256;

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
export const SHAPES = {
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

export const WAYS = {
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
export function entriesOf(type = '', body = '') {
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
export async function startSite() {
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
        if (got.length > 1000) got.shift();
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
    /** What the post of case C sent (the last 1000 posts are kept). */
    got: (c) => got.find((g) => g.case === c),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

