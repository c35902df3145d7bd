// A small HTTP server for test pages: static files from tests/fixtures/
// (or another folder) plus a few dynamic routes the tests need.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export function escapeHtml(s) {
  return String(s)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** The page a form submission leads to: each field as <dd id="got-NAME">. */
function submittedPage(method, params) {
  const rows = [...params]
    .map(([k, v]) => `  <dt>${escapeHtml(k)}</dt><dd id="got-${escapeHtml(k)}">${escapeHtml(v)}</dd>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Submitted</title></head>
<body>
<h1>Submitted</h1>
<p>Method: <span id="method">${method}</span></p>
<dl>
${rows}
</dl>
<p><a href="/form.html">Back to the form</a></p>
</body>
</html>
`;
}

function readBody(req, limit = 1 << 20) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

/** A held request's name -> { arrived, release } (see `/hold`). */
function holdFor(holds, name) {
  let h = holds.get(name);
  if (!h) {
    h = { arrived: false };
    h.released = new Promise((r) => { h.release = r; });
    holds.set(name, h);
  }
  return h;
}

/** `size` bytes that tell their own offsets apart: byte i is (i * 7 + i >> 8) & 255. */
export function patternBytes(size) {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 255;
  return bytes;
}

/**
 * Routes for the network tools' tests, each with a known answer:
 * /net/json (JSON, with a custom header), /net/redirect?n=N (N hops, then
 * JSON), /net/missing (404), /net/bytes?size=N (binary, patternBytes),
 * /net/text?size=N (text), /net/pixel.png (an image), /net/echo (the
 * request's method and body, any method), /net/seen?as=js|css|png|html|json
 * (the request's X-Added header, as that kind of resource shows it),
 * /net/download?name=&size=&chunks=&every=&broken (an attachment, slow or cut).
 */
async function network(u, req, res) {
  const headers = { 'Cache-Control': 'no-store' };
  switch (u.pathname) {
    case '/net/json':
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'X-Fixture': 'json' });
      res.end(JSON.stringify({ hello: 'network', query: u.search }));
      return;
    case '/net/redirect': {
      const n = Math.min(Number(u.searchParams.get('n')) || 0, 20);
      if (n > 0) {
        res.writeHead(302, { ...headers, Location: `/net/redirect?n=${n - 1}` });
        res.end();
      } else {
        res.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ redirected: 'done' }));
      }
      return;
    }
    case '/net/bytes': {
      const size = Math.min(Number(u.searchParams.get('size')) || 0, 16 << 20);
      res.writeHead(200, { ...headers, 'Content-Type': 'application/octet-stream', 'Content-Length': size });
      res.end(patternBytes(size));
      return;
    }
    case '/net/text': {
      const size = Math.min(Number(u.searchParams.get('size')) || 0, 16 << 20);
      const line = 'network text line 0123456789\n';
      res.writeHead(200, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(line.repeat(Math.ceil(size / line.length)).slice(0, size));
      return;
    }
    case '/net/cors':
      // Readable from any origin: what a frame of another site can fetch too.
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
      res.end(JSON.stringify({ real: 'the server\'s bytes', query: u.search }));
      return;
    case '/net/headers': {
      // Many long response headers (the memory test).
      const n = Math.min(Number(u.searchParams.get('n')) || 0, 100);
      const size = Math.min(Number(u.searchParams.get('size')) || 0, 8192);
      const many = { ...headers, 'Content-Type': 'application/json' };
      for (let i = 0; i < n; i++) many[`X-Long-${i}`] = 'h'.repeat(size);
      res.writeHead(200, many);
      res.end('{}');
      return;
    }
    case '/net/seen': {
      // What the request's X-Added header said, shown as each kind of
      // resource can show it: a script's global, a stylesheet's colour, an
      // image that loads only with it, a frame's message, JSON.
      const added = req.headers['x-added'] ?? null;
      const as = u.searchParams.get('as');
      const cors = { ...headers, 'Access-Control-Allow-Origin': '*' };
      if (as === 'js') {
        res.writeHead(200, { ...cors, 'Content-Type': 'text/javascript' });
        res.end(`window.routedValue = ${JSON.stringify(added)};`);
      } else if (as === 'css') {
        res.writeHead(200, { ...cors, 'Content-Type': 'text/css' });
        res.end(`h1 { color: ${added ? 'rgb(0, 128, 0)' : 'rgb(128, 0, 0)'} }`);
      } else if (as === 'png') {
        res.writeHead(added ? 200 : 404, { ...cors, 'Content-Type': 'image/png' });
        res.end(added ? PIXEL_PNG : '');
      } else if (as === 'html') {
        res.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
        res.end(`<!doctype html><title>Seen</title><script>parent.postMessage(${JSON.stringify(added)}, '*')</script>`);
      } else {
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ added }));
      }
      return;
    }
    case '/net/download': {
      // A file to save: `size` pattern bytes in `chunks` parts `every` ms
      // apart; `broken` ends the connection halfway.
      const size = Math.min(Number(u.searchParams.get('size')) || 0, 16 << 20);
      const chunks = Math.min(Math.max(Number(u.searchParams.get('chunks')) || 1, 1), 1000);
      const every = Math.min(Number(u.searchParams.get('every')) || 0, 10_000);
      const name = (u.searchParams.get('name') || 'file.bin').replace(/[^\w.-]/g, '_');
      res.writeHead(200, {
        ...headers, 'Content-Type': 'application/octet-stream', 'Content-Length': size,
        'Content-Disposition': `attachment; filename="${name}"`,
      });
      const bytes = patternBytes(size);
      const part = Math.ceil(size / chunks);
      for (let at = 0; at < size; at += part) {
        if (u.searchParams.has('broken') && at >= size / 2) {
          res.destroy();
          return;
        }
        if (res.destroyed) return;
        res.write(bytes.subarray(at, at + part));
        if (every) await new Promise((r) => setTimeout(r, every));
      }
      res.end();
      return;
    }
    case '/net/pixel.png':
      res.writeHead(200, { ...headers, 'Content-Type': 'image/png' });
      res.end(PIXEL_PNG);
      return;
    case '/net/echo': {
      const body = req.method === 'GET' || req.method === 'HEAD' ? '' : await readBody(req);
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, body }));
      return;
    }
    default:
      send(res, 404, TYPES['.txt'], 'not found\n');
  }
}

/** A 1x1 red PNG. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==',
  'base64');

async function handle(root, holds, submitted, served, req, res) {
  const u = new URL(req.url, 'http://fixture.invalid');

  if (u.pathname === '/hold') {
    // Answered only when the test releases this name: a page's way to say
    // "I got here" and to wait for the test.
    const h = holdFor(holds, u.searchParams.get('name') || '');
    h.arrived = true;
    await h.released;
    send(res, 200, TYPES['.txt'], 'released\n');
    return;
  }

  if (u.pathname === '/submit') {
    let params = u.searchParams;
    if (req.method === 'POST') params = new URLSearchParams(await readBody(req));
    submitted.push(Object.fromEntries(params));
    if (submitted.length > 20) submitted.shift();
    send(res, 200, TYPES['.html'], submittedPage(req.method, params));
    return;
  }

  if (u.pathname === '/slow') {
    const ms = Math.min(Number(u.searchParams.get('ms')) || 0, 60_000);
    await new Promise((r) => setTimeout(r, ms));
    send(res, 200, TYPES['.html'],
      `<!doctype html><html><head><meta charset="utf-8"><title>Slow</title></head>` +
      `<body><p id="slow">Served after ${ms} ms</p></body></html>\n`);
    return;
  }

  if (u.pathname === '/set-cookie') {
    // Sets the cookie named in the query, HttpOnly when asked; answers with an X-Api-Key when given one.
    const name = u.searchParams.get('name') || 'session';
    const value = u.searchParams.get('value') || 'abc';
    const flags = u.searchParams.get('httponly') ? '; HttpOnly' : '';
    const key = u.searchParams.get('key');
    res.writeHead(200, {
      'Content-Type': TYPES['.html'], 'Set-Cookie': `${name}=${value}; Path=/${flags}`, ...(key ? { 'X-Api-Key': key } : {}),
    });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Cookie set</title></head><body><p>Set ${escapeHtml(name)}</p></body></html>\n`);
    return;
  }

  if (u.pathname === '/auth') {
    // HTTP Basic authentication: user "agent", password "s3cret".
    const expected = 'Basic ' + Buffer.from('agent:s3cret').toString('base64');
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'Content-Type': TYPES['.html'], 'WWW-Authenticate': 'Basic realm="fixtures"' });
      res.end('<!doctype html><html><head><meta charset="utf-8"><title>Refused</title></head><body><p id="auth">refused</p></body></html>\n');
      return;
    }
    send(res, 200, TYPES['.html'],
      '<!doctype html><html><head><meta charset="utf-8"><title>Welcome</title></head><body><p id="auth">welcome agent</p></body></html>\n');
    return;
  }

  if (u.pathname === '/cached') {
    // Cacheable for an hour; counts how often it was served, by name.
    const name = u.searchParams.get('name') || '';
    if (!served.has(name) && served.size >= 100) served.clear();
    served.set(name, (served.get(name) || 0) + 1);
    res.writeHead(200, { 'Content-Type': TYPES['.txt'], 'Cache-Control': 'public, max-age=3600' });
    res.end(`served ${served.get(name)}\n`);
    return;
  }

  if (u.pathname === '/echo') {
    // What the browser sent: the request's headers, as JSON in the page.
    const body = JSON.stringify({ method: req.method, url: req.url, headers: req.headers });
    send(res, 200, TYPES['.html'],
      `<!doctype html><html><head><meta charset="utf-8"><title>Echo</title></head>` +
      `<body><pre id="echo">${escapeHtml(body)}</pre></body></html>\n`);
    return;
  }

  if (u.pathname.startsWith('/net/')) {
    await network(u, req, res);
    return;
  }

  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, TYPES['.txt'], 'method not allowed\n');
    return;
  }

  let rel = decodeURIComponent(u.pathname);
  if (rel.endsWith('/')) rel += 'index.html';
  // Several roots: the first that has the file serves it (a variant over its base).
  for (const dir of [root].flat()) {
    const file = path.resolve(dir, '.' + rel);
    if (!file.startsWith(path.resolve(dir) + path.sep)) {
      send(res, 403, TYPES['.txt'], 'forbidden\n');
      return;
    }
    try {
      const body = await readFile(file);
      send(res, 200, TYPES[path.extname(file)] ?? 'application/octet-stream', body);
      return;
    } catch {
      // Not in this root: the next one may have it.
    }
  }
  send(res, 404, TYPES['.txt'], 'not found\n');
}

/** A loopback port where nothing listens (taken from the system, then released). */
export async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Start the server on 127.0.0.1, port chosen by the system.
 * Returns { origin, url(path), close() }. `root`: a folder, or folders tried in order;
 * `tls`: { key, cert } in PEM to serve https.
 */
export async function startFixtureServer({ root = FIXTURES, host = '127.0.0.1', tls = null } = {}) {
  const holds = new Map();
  const submitted = [];
  const served = new Map();
  const answer = (req, res) => {
    handle(root, holds, submitted, served, req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, TYPES['.txt'], String(err) + '\n');
      else res.destroy();
    });
  };
  // tls: { key, cert } (PEM) serves https.
  const server = tls ? https.createServer(tls, answer) : http.createServer(answer);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const origin = `${tls ? 'https' : 'http'}://${host}:${server.address().port}`;
  return {
    origin,
    url: (p = '/') => origin + (p.startsWith('/') ? p : '/' + p),
    /** Whether a request to /hold?name=NAME has arrived. */
    held: (name) => holdFor(holds, name).arrived,
    /** Answers the requests to /hold?name=NAME, now and later. */
    release: (name) => holdFor(holds, name).release(),
    /** How often /cached?name=NAME was served (a cache hit is not). */
    served: (name) => served.get(name) || 0,
    /** The fields of the last forms sent to /submit (at most 20), oldest first. */
    submitted: () => [...submitted],
    close: () =>
      new Promise((resolve) => {
        for (const h of holds.values()) h.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
