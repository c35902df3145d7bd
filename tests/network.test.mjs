// The network tools: every request of a tab's pages and frames, as WebKit
// reported it, with the status a server gave, and the bodies read back
// byte for byte. The fixture server answers each route with a known body.
import harValidator from 'har-validator';
import { connectPanel } from './support/agent.mjs';
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';
import { PIXEL_PNG, closedPort, patternBytes } from './support/fixture-server.mjs';
import { waitFor } from './support/wait.mjs';

const FIXTURE_PAGE = readFileSync(new URL('./fixtures/network.html', import.meta.url));

describe('network', { timeout: 180_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let port;
  let list;
  const find = (pattern) => {
    const found = list.requests.filter((r) => pattern.test(r.url));
    assert.ok(found.length > 0, `no request matches ${pattern} in ${JSON.stringify(list.requests.map((r) => r.url))}`);
    return found;
  };
  const one = (pattern) => {
    const found = find(pattern);
    assert.equal(found.length, 1, `one request matches ${pattern}: ${JSON.stringify(found)}`);
    return found[0];
  };

  /** Opens the fixture page, runs its requests and waits for all of them to end. */
  async function loadAndRun() {
    await call('open', { url: suite.fixtures.url(`network.html?refused=${port}`) });
    await call('click', { selector: '#run' });
    await waitFor(async () => (await call('eval', { script: 'document.getElementById("out").textContent' })).value,
      'the page to finish its requests');
    return waitFor(async () => {
      const seen = await call('network_requests', { limit: 1000 });
      const ended = seen.requests.every((r) => !r.pending);
      return ended && seen.requests.some((r) => r.url.includes('via=frame-xhr')) && seen;
    }, 'every request, the cross-origin frame\'s among them, to end');
  }

  before(async () => {
    port = await closedPort();
  });

  it('lists every request of the page and its frames, each with its status or failure', { timeout: 60_000 }, logged(async () => {
    list = await loadAndRun();
    assert.equal(list.since, 'navigation');
    assert.equal(list.left_out, 0);
    assert.equal(list.dropped, 0);
    assert.equal(list.count, list.requests.length);
    const ids = list.requests.map((r) => r.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'oldest first');

    const page = list.requests[0];
    assert.equal(page.type, 'document');
    assert.match(page.url, /network\.html\?refused=/);
    assert.equal(page.status, 200);
    assert.equal(one(/\/net\/pixel\.png$/).type, 'image');
    assert.equal(one(/\/net\/pixel\.png$/).status, 200);
    const style = one(/\/net\/style\.css$/);
    assert.equal(style.type, 'stylesheet');
    assert.equal(style.status, 404);
    assert.equal(one(/\/frame-inner\.html$/).type, 'frame');
    const cross = one(/\/network-frame\.html$/);
    assert.equal(cross.type, 'frame');
    assert.notEqual(new URL(cross.url).hostname, new URL(page.url).hostname, 'the frame is of another origin');

    for (const via of ['fetch', 'xhr', 'frame']) {
      const json = one(new RegExp(`/net/json\\?via=${via}$`));
      assert.equal(json.type, 'fetch', `${via}: fetch() and XMLHttpRequest are both fetch`);
      assert.equal(json.method, 'GET');
      assert.equal(json.status, 200);
      assert.equal(typeof json.ms, 'number');
    }
    assert.equal(one(/via=frame-xhr/).size, 5000);

    // The chain: three redirects, each its own entry, linked to the next.
    const hops = find(/\/net\/redirect\?n=\d$/);
    assert.deepEqual(hops.map((h) => new URL(h.url).searchParams.get('n')), ['3', '2', '1', '0']);
    assert.deepEqual(hops.map((h) => h.status), [302, 302, 302, 200]);
    for (let i = 0; i < 3; i++) assert.equal(hops[i].redirected_to, hops[i + 1].id);
    assert.equal(hops[3].redirected_to, undefined);

    assert.equal(one(/\/net\/missing$/).status, 404);
    const refused = one(/\/refused$/);
    assert.equal(refused.status, undefined, 'a refused connection has no status');
    assert.match(refused.failure, /connect|refused/i);
    const big = one(/\/net\/bytes\?size=2097152$/);
    assert.equal(big.size, 2097152);
    assert.equal(one(/\/net\/echo$/).method, 'POST');
  }));

  it('reads bodies back byte for byte, text in the result and binary in files', { timeout: 60_000 }, logged(async () => {
    const detail = (r, args = {}) => call('network_request', { id: r.id, ...args });

    const page = await detail(list.requests[0]);
    assert.equal(page.body, FIXTURE_PAGE.toString('utf8'), 'the document, as served');
    const fetched = await detail(one(/via=fetch$/));
    assert.equal(fetched.body, JSON.stringify({ hello: 'network', query: '?via=fetch' }));
    assert.equal(fetched.response_headers['X-Fixture'], 'json');
    assert.equal(fetched.request_headers['Sec-Fetch-Dest'], 'empty');
    assert.equal(fetched.mime, 'application/json');
    assert.equal((await detail(one(/via=xhr$/))).body, JSON.stringify({ hello: 'network', query: '?via=xhr' }));
    assert.equal((await detail(one(/via=frame$/))).body, JSON.stringify({ hello: 'network', query: '?via=frame' }),
      'a cross-origin frame\'s fetch');
    assert.equal((await detail(one(/\/net\/missing$/))).body, 'not found\n');
    assert.equal((await detail(one(/\/net\/echo$/))).body, JSON.stringify({ method: 'POST', body: 'posted body' }));

    const hops = find(/\/net\/redirect\?n=\d$/);
    const first = await detail(hops[0]);
    assert.equal(first.body, null);
    assert.match(first.body_note, /redirect/);
    assert.match(first.response_headers.Location, /n=2$/);
    const last = await detail(hops[3]);
    assert.equal(last.body, JSON.stringify({ redirected: 'done' }));
    assert.equal(last.redirected_from, hops[2].id);

    // Binary bodies go to the files folder, exactly as served.
    const big = await detail(one(/size=2097152$/));
    assert.equal(big.body, null);
    assert.equal(big.body_bytes, 2097152);
    assert.ok(readFileSync(big.body_path).equals(patternBytes(2097152)), 'the 2 MB body, byte for byte');
    const image = await detail(one(/pixel\.png$/));
    assert.ok(readFileSync(image.body_path).equals(PIXEL_PNG), 'the image, byte for byte');
    const frameBytes = await detail(one(/via=frame-xhr$/));
    assert.ok(readFileSync(frameBytes.body_path).equals(patternBytes(5000)), 'the frame\'s XMLHttpRequest arraybuffer');

    // Long text is cut with a marker, and the whole of it is in a file.
    const text = await detail(one(/\/net\/text\?size=300000$/), { max_chars: 100 });
    assert.match(text.body, /^network text line 0123456789\n/);
    assert.match(text.body, /\[… 299900 more characters: the whole body is in body_path\]$/);
    const whole = readFileSync(text.body_path, 'utf8');
    assert.equal(whole.length, 300000);
    assert.ok(whole.startsWith(text.body.slice(0, 100)));

    const refused = await detail(one(/\/refused$/));
    assert.equal(refused.body, null);
    assert.match(refused.body_note, /no response/);
  }));

  it('shows the body a fetch or an XMLHttpRequest sent: text in the result, binary in files', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await call('network_requests', { mark: true });
    await call('eval', { script: `
      const xhr = (method, url, body, type) => new Promise((done) => {
        const r = new XMLHttpRequest();
        r.open(method, url);
        if (type) r.setRequestHeader('Content-Type', type);
        r.onloadend = done;
        r.send(body);
      });
      const form = new FormData();
      form.append('field', 'a form value');
      await fetch('/echo?sent=json', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ a: 1, name: 'Ada' }) });
      await xhr('PUT', '/echo?sent=text', 'plain words', 'text/plain');
      await fetch('/echo?sent=binary', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: new Uint8Array([0, 1, 2, 255, 254]) });
      await xhr('POST', '/echo?sent=form', form);
      await fetch('/echo?sent=none');
      navigator.sendBeacon('/echo?sent=beacon', 'left the page');
      1` });
    const listed = await waitFor(async () => {
      const seen = await call('network_requests', { url: 'sent=' });
      return seen.requests.length === 6 && seen.requests.every((r) => !r.pending) && seen;
    }, 'the six requests to end');
    const sent = async (what) => call('network_request', { id: listed.requests.find((r) => r.url.endsWith(`sent=${what}`)).id });
    const json = await sent('json');
    assert.equal(json.request_body, '{"a":1,"name":"Ada"}');
    assert.match(json.request_body_note, /as the page's fetch\(\) sent it/);
    const text = await sent('text');
    assert.deepEqual([text.method, text.request_body], ['PUT', 'plain words']);
    assert.match(text.request_body_note, /XMLHttpRequest/);
    const binary = await sent('binary');
    assert.equal(binary.request_body, null);
    assert.equal(binary.request_body_bytes, 5);
    assert.deepEqual([...readFileSync(binary.request_body_path)], [0, 1, 2, 255, 254]);
    const form = await sent('form');
    assert.match(form.request_body_path ? readFileSync(form.request_body_path, 'utf8') : form.request_body, /name="field"\r\n\r\na form value/);
    assert.match(form.request_body_note, /FormData re-encoded/);
    const none = await sent('none');
    assert.equal(none.request_body, undefined, 'a GET sends no body');
    const beacon = await sent('beacon');
    assert.deepEqual([beacon.method, beacon.request_body], ['POST', 'left the page']);
    assert.match(beacon.request_body_note, /sendBeacon\(\)/);

    // A form's own post (a navigation): its entries, as the form encodes them.
    await call('open', { url: suite.fixtures.url('form.html') });
    await call('fill', { selector: '#name', value: 'Ada Lovelace' });
    await call('fill', { selector: '#comments', value: 'pw&1=é' });
    await call('click', { selector: '#create' });
    const posted = (await call('network_requests', { url: '/submit' })).requests.find((r) => r.method === 'POST');
    const post = await call('network_request', { id: posted.id });
    const fields = new URLSearchParams(post.request_body);
    assert.deepEqual([fields.get('name'), fields.get('comments')], ['Ada Lovelace', 'pw&1=é'], post.request_body);
    assert.match(post.request_body_note, /the form's entries/);

    // A form holding a password: its post is withheld, whoever typed it (the site gets it).
    await call('open', { url: suite.fixtures.url('form.html') });
    await call('fill', { selector: '#name', value: 'Grace' });
    await call('fill', { selector: '#password', value: 'agent-typed-secret' });
    await call('click', { selector: '#create' });
    await waitFor(async () => (await call('get_title')).title === 'Submitted', 'the form to be sent');
    assert.equal(suite.fixtures.submitted().at(-1).password, 'agent-typed-secret');
    const secret = (await call('network_requests', { url: '/submit' })).requests.find((r) => r.method === 'POST');
    const withheld = await call('network_request', { id: secret.id });
    assert.equal(withheld.request_body, null, JSON.stringify(withheld));
    assert.match(withheld.request_body_note, /^withheld, for good: .*password/);
    const { body: _shownBack, ...request } = withheld; // the site's answer shows it back
    assert.ok(!JSON.stringify(request).includes('agent-typed-secret'), JSON.stringify(request));
  }));

  it('exports the tab\'s requests as HAR 1.2 that har-validator accepts (the person\'s, from the panel)', { timeout: 60_000 }, logged(async () => {
    list = await loadAndRun();
    const panel = await connectPanel(suite.session.browser);
    try {
      const tab = (await call('tab_list')).tabs.find((t) => t.front).id;
      const { result: saved, error } = await panel.call('network_har', { tab });
      assert.equal(error, undefined, JSON.stringify(error));
      assert.equal(saved.entries, list.requests.length, 'the requests network_requests lists');
      const har = JSON.parse(readFileSync(saved.path, 'utf8'));
      // The validator throws on a HAR it refuses (it does on a broken one).
      await harValidator.har(har);
      await assert.rejects(harValidator.har({ log: { version: '1.2', entries: [{}] } }));
      assert.equal(har.log.version, '1.2');
      const entry = (pattern) => har.log.entries.find((e) => pattern.test(e.request.url));
      assert.equal(entry(/\/net\/missing$/).response.status, 404);
      assert.match(entry(/\/refused/)._failure, /connect/i);
      const json = entry(/\/net\/json\?via=fetch$/);
      assert.deepEqual(json.request.queryString, [{ name: 'via', value: 'fetch' }]);
      assert.ok(json.response.headers.some((h) => h.name.toLowerCase() === 'x-fixture' && h.value === 'json'));
      assert.equal(json._resourceType, 'fetch');
      assert.equal(json.response.content.text, JSON.stringify({ hello: 'network', query: '?via=fetch' }), 'the body, for replaying it');
      assert.ok(har.log.entries.every((e) => har.log.pages.some((p) => p.id === e.pageref)));
      assert.ok(har.log.pages.some((p) => p.title === 'Network'), JSON.stringify(har.log.pages));
      // Only in the files folder; and only the person's.
      const outside = await panel.call('network_har', { tab, path: '/etc/sovereign.har' });
      assert.equal(outside.error.code, 'INVALID_PARAMS');
      assert.equal((await suite.mcp.callTool('network_har', {})).isError, true);
    } finally {
      panel.close();
    }
  }));

  it('filters by URL, type, failure and status, and bounds the output with counts', { timeout: 60_000 }, logged(async () => {
    const redirects = await call('network_requests', { url: '/net/redirect' });
    assert.equal(redirects.count, 4);
    const images = await call('network_requests', { type: 'image' });
    assert.ok(images.requests.every((r) => r.type === 'image'));
    assert.ok(images.requests.some((r) => r.url.endsWith('/net/pixel.png')));
    const failed = await call('network_requests', { failed: true });
    assert.ok(failed.requests.every((r) => r.failure || r.status >= 400), JSON.stringify(failed.requests));
    for (const part of ['/net/missing', '/refused', '/net/style.css']) {
      assert.ok(failed.requests.some((r) => r.url.endsWith(part)), `${part} is among the failed`);
    }
    const moved = await call('network_requests', { status_min: 300, status_max: 399 });
    assert.deepEqual(moved.requests.map((r) => r.status), [302, 302, 302]);
    const glob = await call('network_requests', { url: '**/net/json?via=*', type: 'fetch' });
    assert.equal(glob.count, 3);

    const all = await call('network_requests');
    const newest = await call('network_requests', { limit: 2 });
    assert.equal(newest.count, all.count);
    assert.equal(newest.shown, 2);
    assert.equal(newest.left_out, all.count - 2);
    assert.deepEqual(newest.requests, all.requests.slice(-2), 'the newest, oldest first');

    await callError(suite.mcp, 'network_request', { id: 999999 }, 'INVALID_PARAMS');
    const bad = await callError(suite.mcp, 'network_requests', { url: 'a(' }, 'INVALID_PARAMS');
    assert.match(bad, /url/);
    await callError(suite.mcp, 'network_requests', { status_min: 500, status_max: 400 }, 'INVALID_PARAMS');
    await callError(suite.mcp, 'network_requests', { type: 'websocket' }, 'INVALID_PARAMS');
  }));

  it('lists since the mark an agent sets, since the last navigation, or from the start', { timeout: 60_000 }, logged(async () => {
    const before = await call('network_requests', { mark: true });
    const markedAt = before.requests.at(-1).id;
    // Nothing since the mark.
    assert.equal((await call('network_requests')).since, 'mark');
    assert.equal((await call('network_requests')).count, 0);
    await call('eval', { script: "await fetch('/net/json?after=mark'); return 1" });
    const after = await waitFor(async () => {
      const seen = await call('network_requests');
      return seen.count === 1 && !seen.requests[0].pending && seen;
    }, 'the one request after the mark');
    assert.match(after.requests[0].url, /after=mark$/);
    assert.ok(after.requests[0].id > markedAt);
    assert.equal((await call('network_request', { id: after.requests[0].id })).body,
      JSON.stringify({ hello: 'network', query: '?after=mark' }));

    // A navigation starts a new page: only its requests, the mark being older.
    await call('open', { url: suite.fixtures.url('form.html') });
    const fresh = await call('network_requests');
    assert.match(fresh.requests[0].url, /form\.html$/);
    assert.equal(fresh.requests[0].type, 'document');
    assert.ok(fresh.requests.every((r) => !r.url.includes('/net/')));
    const everything = await call('network_requests', { all: true, limit: 1000 });
    assert.equal(everything.since, 'start');
    assert.ok(everything.requests.some((r) => r.url.includes('network.html')));
    assert.ok(everything.requests.some((r) => r.url.endsWith('form.html')));
  }));

  it('keeps the body of a page that sabotages the APIs the recorder reads with', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('network.html') });
    const script = `
      Response.prototype.clone = () => { throw new Error('no clone'); };
      ReadableStream.prototype.getReader = () => { throw new Error('no reader'); };
      Uint8Array.prototype.set = () => { throw new Error('no set'); };
      const r = await window.fetch('/net/json?via=sabotage');
      return [fetch.length, fetch.name, await r.text()];`;
    const seen = await call('eval', { script });
    assert.deepEqual(seen.value, [1, 'fetch', JSON.stringify({ hello: 'network', query: '?via=sabotage' })],
      'the page sees fetch as it is');
    const request = await waitFor(async () => {
      const found = await call('network_requests', { url: 'via=sabotage' });
      return found.count === 1 && !found.requests[0].pending && found.requests[0];
    }, 'the request');
    assert.equal((await call('network_request', { id: request.id })).body,
      JSON.stringify({ hello: 'network', query: '?via=sabotage' }));
  }));

  it('a page can neither add a request nor change what a response held', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('network.html') });
    const script = `
      const real = window.fetch;
      // A wrapper that forges what its callers get, and a response made up in the page.
      window.fetch = async (url) => { await real(url); return new Response('forged body'); };
      const forged = await (await window.fetch('/net/json?via=forged')).text();
      const made = await new Response('made up').text();
      return [forged, made];`;
    assert.deepEqual((await call('eval', { script })).value, ['forged body', 'made up']);
    const seen = await waitFor(async () => {
      const found = await call('network_requests', { url: 'via=forged' });
      return found.count === 1 && !found.requests[0].pending && found;
    }, 'the real request');
    assert.equal((await call('network_request', { id: seen.requests[0].id })).body,
      JSON.stringify({ hello: 'network', query: '?via=forged' }), 'the body the server sent, not the forged one');
    const all = await call('network_requests');
    assert.ok(all.requests.every((r) => r.url.startsWith('http')), 'nothing made up in the page is listed');
    assert.equal(all.requests.filter((r) => r.url.includes('via=forged')).length, 1);
  }));

  // Regression: every frame of a tab reported into one store, matched by
  // method, URL and nearest start, and the recorder read bytes through
  // prototypes a realm can replace: a cross-origin frame could answer for
  // the top page's request, or flood the real body out.
  it('a cross-origin frame that poisons its realm and floods cannot answer for the top page\'s request', { timeout: 90_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('network-forge.html') });
    await waitFor(async () => (await callText(suite.mcp, 'get_text', { selector: '#state' })).trim() === 'done',
      'the frame to fetch the page\'s URL and flood', 60_000);
    const got = (await call('eval', { script: 'document.getElementById("state").dataset.got' })).value;
    const real = JSON.stringify({ real: 'the server\'s bytes', query: '?for=top' });
    assert.equal(got, real, 'what the page itself received');
    const seen = await waitFor(async () => {
      const list = await call('network_requests', { url: '**/net/cors?for=top', limit: 1000 });
      return list.requests.every((r) => !r.pending) && list;
    }, 'the requests of the page\'s URL to end');
    let top = 0;
    let frames = 0;
    for (const r of seen.requests) {
      const detail = await call('network_request', { id: r.id });
      assert.ok(!JSON.stringify(detail).includes('FORGED'), `nothing forged: ${JSON.stringify(detail).slice(0, 500)}`);
      if (detail.request_headers.Origin) {
        frames += 1;
        continue;
      }
      top += 1;
      assert.equal(detail.body, real, `the top page's request gets the real bytes: ${detail.body_note}`);
      assert.match(detail.body_note, /in the main frame/);
    }
    assert.equal(top, 1, 'the top page fetched once');
    assert.ok(frames >= 50, `the frame fetched it ${frames} times`);
  }));
});
