// Routes: an agent blocks, mocks or changes a context's requests, and the
// page sees what the route said as if the server had said it, for every
// kind of request, in a frame of another origin too, with CORS decided on
// the route's headers. Asserted from the page's side and in the log.
import { describe, it, before, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { WebSocketServer } from 'ws';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allowRoutesInPersonsWindow, loggedInSuite } from './support/session.mjs';
import { callError, callJson, connectMcp, TEST_NSEC } from './support/mcp.mjs';
import { PIXEL_PNG, startFixtureServer } from './support/fixture-server.mjs';
import { makeTestCa } from './support/test-ca.mjs';
import { connectPanel } from './support/agent.mjs';
import { waitFor } from './support/wait.mjs';

describe('network routes', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-files-'));
  const certs = mkdtempSync(path.join(os.tmpdir(), 'sovereign-ca-'));
  const ca = makeTestCa(certs);
  // The proxy verifies sites against these roots: the test CA alone.
  const suite = loggedInSuite({ args: ['--files-dir', dir], env: { SSL_CERT_FILE: ca.caFile } });
  const { call, logged } = suite;
  let mcp;
  let secure;
  let untrusted;
  before(async () => {
    // These routes are in the person's window: the person said yes in the panel.
    await allowRoutesInPersonsWindow(suite.session.browser);
    secure = await startFixtureServer({ tls: ca.site });
    untrusted = await startFixtureServer({ tls: ca.untrusted });
  });
  beforeEach(async () => {
    mcp = suite.mcp;
    await call('network_unroute', { all: true });
  });
  after(async () => {
    await secure?.close();
    await untrusted?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(certs, { recursive: true, force: true });
  });

  const page = () => call('open', { url: suite.fixtures.url('/routes.html') });
  /** Runs one of the page's own helpers (routes.html) and gives its answer. */
  const inPage = async (helper, ...args) =>
    (await call('eval', { script: `${helper}(${args.map((a) => JSON.stringify(a)).join(', ')})` })).value;
  const route = async (args) => (await call('network_route', args)).route;
  /** The other origin: the same server under another host name. */
  const otherOrigin = () => suite.fixtures.origin.replace('127.0.0.1', 'localhost');
  /** The log's entries for a URL, once they have ended. */
  const logged_ = (pattern) => waitFor(async () => {
    const seen = (await call('network_requests', { limit: 1000 })).requests.filter((r) => pattern.test(r.url));
    return seen.length > 0 && seen.every((r) => !r.pending) && seen;
  }, `the log to hold ${pattern}`);

  it('fulfill answers fetch, XMLHttpRequest, scripts, stylesheets, images and documents as a server would', { timeout: 60_000 }, logged(async () => {
    await page();
    writeFileSync(path.join(dir, 'pixel.png'), PIXEL_PNG);
    const api = await route({ url: '**/api/items', action: 'fulfill', json: { items: ['a', 'b'] }, headers: { 'X-Mock': 'yes' } });
    assert.equal(api.action, 'fulfill');
    await route({ url: '**/mocked.txt', action: 'fulfill', status: 201, body: 'plain words' });
    await route({ url: '**/mocked.js', action: 'fulfill', body: 'window.routedValue = 42;', headers: { 'Content-Type': 'text/javascript' } });
    await route({ url: '**/mocked.css', action: 'fulfill', body: 'h1 { color: rgb(1, 2, 3) }', headers: { 'Content-Type': 'text/css' } });
    await route({ url: '**/mocked.png', action: 'fulfill', body_file: path.join(dir, 'pixel.png') });

    const got = await inPage('fetchIt', '/api/items');
    assert.deepEqual([got.status, got.type, got.mock, JSON.parse(got.text)], [200, 'application/json', 'yes', { items: ['a', 'b'] }]);
    assert.deepEqual(await inPage('xhrIt', '/mocked.txt'), { status: 201, text: 'plain words' });
    assert.deepEqual(await inPage('scriptIt', '/mocked.js'), { loaded: true, value: 42 });
    assert.deepEqual(await inPage('styleIt', '/mocked.css'), { color: 'rgb(1, 2, 3)' });
    assert.deepEqual(await inPage('imageIt', '/mocked.png'), { width: 1, height: 1 });

    // The log tells which route answered.
    const [entry] = await logged_(/\/api\/items$/);
    assert.equal(entry.routed, api.id);
    assert.equal(entry.status, 200);

    // A document nobody serves, answered by a route.
    await route({ url: '**/nowhere.html', action: 'fulfill', body: '<!doctype html><title>Mocked</title><p id="m">made by a route</p>', headers: { 'Content-Type': 'text/html' } });
    const opened = await call('open', { url: suite.fixtures.url('/nowhere.html') });
    assert.equal(opened.title, 'Mocked');
    assert.equal((await call('eval', { script: "document.querySelector('#m').textContent" })).value, 'made by a route');
  }));

  // Each action on each kind of request, from the page and from inside a
  // frame of another origin: what the page's own code got.
  for (const place of ['the page', 'a frame of another origin']) {
    it(`abort, fulfill and continue reach every kind of request from ${place}`, { timeout: 90_000 }, logged(async () => {
      await page();
      if (place !== 'the page') {
        const inner = `${otherOrigin()}/routes.html`;
        await call('eval', { script: `new Promise((done) => { const f = document.createElement('iframe'); f.id = 'inner'; f.title = 'Inner'; f.onload = () => done(true); f.src = ${JSON.stringify(inner)}; document.body.append(f); })` });
        await call('frame_switch', { selector: '#inner' });
        assert.equal((await call('eval', { script: 'location.origin' })).value, otherOrigin());
      }
      const tag = place === 'the page' ? 'p' : 'f';
      try {
        // fulfill
        writeFileSync(path.join(dir, 'pixel.png'), PIXEL_PNG);
        await route({ url: '**/matrix/data.json', action: 'fulfill', json: { made: 'by route' } });
        await route({ url: '**/matrix/words.txt', action: 'fulfill', body: 'xhr words' });
        await route({ url: '**/matrix/app.js', action: 'fulfill', body: 'window.routedValue = "fulfilled";', headers: { 'Content-Type': 'text/javascript' } });
        await route({ url: '**/matrix/look.css', action: 'fulfill', body: 'h1 { color: rgb(0, 0, 255) }', headers: { 'Content-Type': 'text/css' } });
        await route({ url: '**/matrix/pic.png', action: 'fulfill', body_file: path.join(dir, 'pixel.png') });
        await route({ url: '**/matrix/frame.html', action: 'fulfill', body: "<!doctype html><script>parent.postMessage('fulfilled frame', '*')</script>", headers: { 'Content-Type': 'text/html' } });
        assert.equal(JSON.parse((await inPage('fetchIt', '/matrix/data.json')).text).made, 'by route');
        assert.equal((await inPage('xhrIt', '/matrix/words.txt')).text, 'xhr words');
        assert.equal((await inPage('scriptIt', '/matrix/app.js')).value, 'fulfilled');
        assert.equal((await inPage('styleIt', '/matrix/look.css')).color, 'rgb(0, 0, 255)');
        assert.equal((await inPage('imageIt', '/matrix/pic.png')).width, 1);
        assert.equal((await inPage('frameIt', '/matrix/frame.html')).said, 'fulfilled frame');
        await call('network_unroute', { all: true });

        // continue: the server sees the header the route added, in each kind's own way
        await route({ url: '**/net/seen*', action: 'continue', request_headers: { 'X-Added': 'yes' }, headers: { 'X-Mock': 'continued' } });
        const fetched = await inPage('fetchIt', `/net/seen?as=json&${tag}`);
        assert.deepEqual([JSON.parse(fetched.text).added, fetched.mock], ['yes', 'continued']);
        assert.equal(JSON.parse((await inPage('xhrIt', `/net/seen?as=json&x${tag}`)).text).added, 'yes');
        assert.equal((await inPage('scriptIt', `/net/seen?as=js&${tag}`)).value, 'yes');
        assert.equal((await inPage('styleIt', `/net/seen?as=css&${tag}`)).color, 'rgb(0, 128, 0)');
        assert.equal((await inPage('imageIt', `/net/seen?as=png&${tag}`)).width, 1);
        assert.equal((await inPage('frameIt', `/net/seen?as=html&${tag}`)).said, 'yes');
        await call('network_unroute', { all: true });

        // abort: each fails as a network error
        const aborted = await route({ url: '**/matrix/**', action: 'abort' });
        assert.match((await inPage('fetchIt', '/matrix/data.json?a')).error, /TypeError/);
        assert.deepEqual(await inPage('xhrIt', '/matrix/words.txt?a'), { error: 'xhr failed' });
        assert.deepEqual(await inPage('scriptIt', '/matrix/app.js?a'), { error: 'script failed' });
        assert.deepEqual(await inPage('styleIt', '/matrix/look.css?a'), { error: 'stylesheet failed' });
        assert.deepEqual(await inPage('imageIt', '/matrix/pic.png?a'), { error: 'image failed' });
        // A frame whose document failed fires no load event: the log tells.
        await call('eval', { script: "const f = document.createElement('iframe'); f.src = '/matrix/frame.html?a'; document.body.append(f); true" });
        const [frame] = await logged_(/\/matrix\/frame\.html\?a$/);
        assert.deepEqual([frame.type, frame.routed, Boolean(frame.failure)], ['frame', aborted.id, true]);
      } finally {
        if (place !== 'the page') await call('frame_main');
      }
    }));
  }

  it('a frame of another origin gets its routed document; CORS is decided on the route\'s headers', { timeout: 60_000 }, logged(async () => {
    await page();
    const other = otherOrigin();
    await route({ url: `${other}/framed.html`, action: 'fulfill', body: "<!doctype html><title>F</title><script>parent.postMessage(document.title + ' from ' + location.origin, '*')</script>", headers: { 'Content-Type': 'text/html' } });
    const framed = await inPage('frameIt', `${other}/framed.html`);
    assert.deepEqual(framed, { said: `F from ${other}`, origin: other });

    // Without Access-Control-Allow-Origin the page may not read it; with it, it may.
    await route({ url: `${other}/closed.json`, action: 'fulfill', json: { secret: 1 } });
    await route({ url: `${other}/open.json`, action: 'fulfill', json: { open: 1 }, headers: { 'Access-Control-Allow-Origin': '*' } });
    assert.match((await inPage('fetchIt', `${other}/closed.json`)).error, /TypeError/);
    assert.equal((await inPage('fetchIt', `${other}/open.json`)).text, '{"open":1}');
  }));

  it('a fulfilled redirect is followed', logged(async () => {
    await page();
    await route({ url: '**/old-place', action: 'fulfill', status: 302, headers: { Location: '/net/cors' } });
    const got = await inPage('fetchIt', '/old-place');
    assert.equal(got.redirected, true);
    assert.match(got.url, /\/net\/cors$/);
    assert.match(got.text, /the server's bytes/);
  }));

  it('abort fails the request as a network error: fetch, script, document', logged(async () => {
    await page();
    const blocked = await route({ url: '**/net/cors*', action: 'abort', reason: 'blocked' });
    await route({ url: '**/blocked.js', action: 'abort' });
    assert.match((await inPage('fetchIt', '/net/cors?x=1')).error, /TypeError/);
    assert.deepEqual(await inPage('scriptIt', '/blocked.js'), { error: 'script failed' });
    await callError(mcp, 'open', { url: suite.fixtures.url('/net/cors?doc=1') }, 'NAVIGATION_FAILED');
    await page();
    await inPage('fetchIt', '/net/cors?x=2');
    const [entry] = await logged_(/\/net\/cors\?x=2$/);
    assert.equal(entry.routed, blocked.id);
    assert.ok(entry.failure, 'the log shows it failed');
    const listed = (await call('network_routes')).routes.find((r) => r.id === blocked.id);
    assert.equal(listed.reason, 'blocked');
    assert.equal(listed.matched, 3, 'each request is taken once: the engine does not try it again');

    // One abort: the engine does not send the request again past it.
    await route({ url: '**/net/text*', action: 'abort', times: 1 });
    assert.match((await inPage('fetchIt', '/net/text?size=5')).error, /TypeError/);
    assert.equal((await inPage('fetchIt', '/net/text?size=5')).text, 'netwo');
  }));

  it('continue changes the request\'s headers and the response\'s status and headers', logged(async () => {
    await page();
    await route({
      url: '**/echo*', action: 'continue', request_headers: { 'X-Added': 'by route', 'Accept-Language': null },
      status: 203, headers: { 'X-Mock': 'changed', 'Content-Type': 'text/plain' },
    });
    const got = await inPage('fetchIt', '/echo?c=1');
    assert.equal(got.status, 203);
    assert.equal(got.mock, 'changed');
    assert.equal(got.type, 'text/plain');
    const seen = JSON.parse(got.text.match(/<pre id="echo">(.*)<\/pre>/s)[1].replaceAll('&quot;', '"'));
    assert.equal(seen.headers['x-added'], 'by route');
    assert.equal(seen.headers['accept-language'], undefined);
  }));

  it('times limits a route, delay_ms holds its answer, the newest route wins', logged(async () => {
    await page();
    await route({ url: '**/net/cors*', action: 'fulfill', body: 'older' });
    const once = await route({ url: '**/net/cors*', action: 'fulfill', body: 'twice', times: 2 });
    assert.equal((await inPage('fetchIt', '/net/cors?t=1')).text, 'twice');
    assert.equal((await inPage('fetchIt', '/net/cors?t=2')).text, 'twice');
    assert.equal((await inPage('fetchIt', '/net/cors?t=3')).text, 'older', 'spent: the older route answers');
    const listed = (await call('network_routes')).routes.find((r) => r.id === once.id);
    assert.deepEqual([listed.matched, listed.spent], [2, true]);

    await route({ url: '**/slowed', action: 'fulfill', body: 'late', delay_ms: 400 });
    const slowed = await inPage('fetchIt', '/slowed');
    assert.equal(slowed.text, 'late');
    assert.ok(slowed.ms >= 380, `answered after ${slowed.ms} ms`);
  }));

  it('unroute takes routes away; bad routes are refused with a reason', logged(async () => {
    await page();
    const r = await route({ url: '**/net/cors*', action: 'fulfill', body: 'mocked' });
    assert.equal((await inPage('fetchIt', '/net/cors?u=1')).text, 'mocked');
    assert.deepEqual(await call('network_unroute', { id: r.id }), { removed: 1 });
    assert.match((await inPage('fetchIt', '/net/cors?u=2')).text, /the server's bytes/);
    await callError(mcp, 'network_unroute', { id: r.id }, 'INVALID_PARAMS');
    await callError(mcp, 'network_unroute', {}, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'abort', body: 'x' }, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'fulfill', body: 'x', json: {} }, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'fulfill', headers: { 'Content-Length': '3' } }, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'fulfill', status: 99 }, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'fulfill', body_file: '/etc/passwd' }, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'abort', delay_ms: 600_000 }, 'INVALID_PARAMS');
    await callError(mcp, 'network_route', { url: '**', action: 'bounce' }, 'INVALID_PARAMS');
    assert.deepEqual((await call('network_routes')).routes, []);
  }));

  it('routes belong to their context and end with it', logged(async () => {
    const other = await connectMcp(suite.session.browser, { name: 'other-agent' });
    try {
      await callJson(other, 'context_new', { name: 'routed' });
      await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(other, 'open', { url: suite.fixtures.url('/routes.html') });
      await callJson(other, 'network_route', { url: '**/net/cors*', action: 'fulfill', body: 'theirs' });
      const theirs = await callJson(other, 'eval', { script: "fetchIt('/net/cors?c=1')" });
      assert.equal(theirs.value.text, 'theirs');
      await page();
      assert.match((await inPage('fetchIt', '/net/cors?c=2')).text, /the server's bytes/, 'not in the person\'s context');
      assert.deepEqual((await call('network_routes')).routes, []);
      assert.equal((await call('network_routes', { context: 'routed' })).routes.length, 1);
      await callJson(other, 'context_close', { context: 'routed' });
      await callError(mcp, 'network_routes', { context: 'routed' }, 'NO_CONTEXT');
    } finally {
      await other.close().catch(() => {});
    }
  }));

  it('https: pages, fetch and frames of other origins are routed; sites a route does not answer are still verified', { timeout: 60_000 }, logged(async () => {
    await route({ url: '**/never-matches', action: 'abort' });
    const opened = await call('open', { url: secure.url('/routes.html') });
    assert.equal(opened.title, 'Routes', 'a page of a site the roots verify passes through');

    const api = await route({ url: `${secure.origin}/api/items`, action: 'fulfill', json: { tls: true } });
    await route({ url: `${secure.origin}/blocked*`, action: 'abort' });
    await route({ url: '**/echo*', action: 'continue', request_headers: { 'X-Added': 'over tls' }, headers: { 'X-Mock': 'tls' } });
    const got = await inPage('fetchIt', '/api/items');
    assert.deepEqual([got.status, got.text], [200, '{"tls":true}']);
    assert.match((await inPage('fetchIt', '/blocked?x=1')).error, /TypeError/);
    const echoed = await inPage('fetchIt', '/echo?tls=1');
    assert.equal(echoed.mock, 'tls');
    assert.match(echoed.text, /x-added&quot;:&quot;over tls/);
    const [entry] = await logged_(/\/api\/items$/);
    assert.equal(entry.routed, api.id);

    const other = secure.origin.replace('127.0.0.1', 'localhost');
    await route({ url: `${other}/framed.html`, action: 'fulfill', body: "<!doctype html><title>S</title><script>parent.postMessage(location.origin, '*')</script>", headers: { 'Content-Type': 'text/html' } });
    assert.deepEqual(await inPage('frameIt', `${other}/framed.html`), { said: other, origin: other });

    // A site whose certificate the roots do not verify is refused, as the engine would.
    await callError(mcp, 'open', { url: untrusted.url('/routes.html') }, 'NAVIGATION_FAILED');
  }));

  it('a HAR written as Chromium writes it answers a whole site offline, https too', { timeout: 60_000 }, logged(async () => {
    const site = 'https://shop.invalid';
    const entry = (url, status, mimeType, text, extra = {}) => ({
      startedDateTime: '2026-12-01T10:00:00.000Z', time: 12,
      request: { method: 'GET', url, httpVersion: 'http/2.0', headers: [{ name: ':authority', value: 'shop.invalid' }], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
      response: {
        status, statusText: '', httpVersion: 'http/2.0', cookies: [], redirectURL: '', headersSize: -1, bodySize: -1, _transferSize: 100,
        headers: [{ name: ':status', value: String(status) }, { name: 'content-encoding', value: 'br' }, { name: 'content-length', value: '7' }, { name: 'content-type', value: mimeType }],
        content: { size: text.length, mimeType, text, ...extra },
      },
      cache: {}, timings: { blocked: -1, dns: -1, ssl: -1, connect: -1, send: 0, wait: 10, receive: 2 }, _resourceType: 'document',
    });
    const har = { log: { version: '1.2', creator: { name: 'WebInspector', version: '537.36' }, pages: [], entries: [
      entry(`${site}/`, 200, 'text/html', '<!doctype html><title>Shop from HAR</title><h1 id="h">Recorded shop</h1><script src="/app.js"></script>'),
      entry(`${site}/app.js`, 200, 'application/javascript', Buffer.from('window.appRan = "yes";').toString('base64'), { encoding: 'base64' }),
      entry(`${site}/api/data`, 200, 'application/json', '{"items":[1,2,3]}'),
      entry(`${site}/gone`, 0, 'x-unknown', ''),
    ] } };
    const file = path.join(dir, 'shop.har');
    writeFileSync(file, JSON.stringify(har));
    const replay = await route({ url: `${site}/**`, action: 'fulfill', body: 'never' }).then(() => call('network_route_har', { path: file }));
    assert.deepEqual([replay.route.action, replay.route.entries, replay.route.not_found], ['har', 3, 'abort']);
    const opened = await call('open', { url: `${site}/` });
    assert.equal(opened.title, 'Shop from HAR');
    assert.equal((await call('eval', { script: 'window.appRan' })).value, 'yes');
    // The recorded page has none of routes.html's helpers: fetch as it is.
    const fetched = async (url) => (await call('eval', {
      script: `fetch(${JSON.stringify(url)}).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), text: await r.text() }), (e) => ({ error: String(e) }))`,
    })).value;
    const data = await fetched('/api/data');
    assert.deepEqual([data.status, data.type, data.text], [200, 'application/json', '{"items":[1,2,3]}']);
    assert.match((await fetched('/not-recorded')).error, /TypeError/, 'not in the file: aborted');
    assert.match((await fetched('/gone')).error, /TypeError/, 'recorded without a response: aborted');

    // not_found pass: an older route (or the network) answers what the file lacks.
    await call('network_unroute', { id: replay.route.id });
    await call('network_route_har', { path: file, not_found: 'pass' });
    assert.equal((await fetched('/not-recorded')).text, 'never');
    await callError(mcp, 'network_route_har', { path: '/etc/hostname' }, 'INVALID_PARAMS');
    writeFileSync(path.join(dir, 'broken.har'), '{"log": {}}');
    assert.match(await callError(mcp, 'network_route_har', { path: path.join(dir, 'broken.har') }, 'INVALID_PARAMS'), /not a HAR/);
  }));

  it('a HAR this browser exported replays its pages when the server is gone', { timeout: 60_000 }, logged(async () => {
    const gone = await startFixtureServer();
    let closed = false;
    try {
      await call('open', { url: gone.url('/routes.html') });
      assert.match((await inPage('fetchIt', '/net/cors?h=1')).text, /the server's bytes/);
      await logged_(/\/net\/cors\?h=1$/);
      const panel = await connectPanel(suite.session.browser);
      let saved;
      try {
        const tab = (await call('tab_list')).tabs.find((t) => t.front).id;
        ({ result: saved } = await panel.call('network_har', { tab }));
      } finally {
        panel.close();
      }
      await gone.close();
      closed = true;
      await call('network_route_har', { path: saved.path });
      const opened = await call('open', { url: gone.url('/routes.html') });
      assert.equal(opened.title, 'Routes', 'the page came from the file');
      const got = await inPage('fetchIt', '/net/cors?h=1');
      assert.equal(got.status, 200);
      assert.match(got.text, /the server's bytes/);
    } finally {
      if (!closed) await gone.close();
    }
  }));

  it('WebSockets pass through a routed context, ws and wss', { timeout: 60_000 }, logged(async () => {
    const echo = async (server) => {
      const sockets = new WebSocketServer({ server });
      sockets.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo ${data}`)));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { port: server.address().port, close: () => { sockets.close(); server.closeAllConnections(); server.close(); } };
    };
    const plainEcho = await echo(http.createServer());
    const secureEcho = await echo(https.createServer(ca.site));
    try {
      await route({ url: '**/never-matches', action: 'abort' });
      await page();
      const talk = (url) => call('eval', {
        script: `new Promise((done) => { const ws = new WebSocket(${JSON.stringify(url)}); ws.onopen = () => ws.send('hi'); ws.onmessage = (e) => { done(e.data); ws.close(); }; ws.onerror = () => done('error'); })`,
      });
      assert.equal((await talk(`ws://127.0.0.1:${plainEcho.port}/`)).value, 'echo hi');
      assert.equal((await talk(`wss://127.0.0.1:${secureEcho.port}/`)).value, 'echo hi');
    } finally {
      plainEcho.close();
      secureEcho.close();
    }
  }));

  it('the proxy serves no one without the engine\'s credential, and a page cannot reach it', logged(async () => {
    await page();
    await route({ url: '**/never', action: 'abort' });
    const line = await waitFor(() => suite.session.browser.stderr().match(/routing proxy listening own=127\.0\.0\.1:(\d+)/), 'the proxy to listen');
    const port = Number(line[1]);
    const ask = (auth) => new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET ${suite.fixtures.url('/net/cors')} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (d) => { text += d; });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(await ask(''), /^HTTP\/1\.1 407/);
    const guess = Buffer.from('context-0:guess').toString('base64');
    assert.match(await ask(`Proxy-Authorization: Basic ${guess}\r\n`), /^HTTP\/1\.1 407/);
    const got = await inPage('fetchIt', `http://127.0.0.1:${port}/`);
    assert.ok(got.error || got.status === 407, `the page got ${JSON.stringify(got)}`);
    assert.doesNotMatch(JSON.stringify(got), /context-|routes/);
  }));
});
