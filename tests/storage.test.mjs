// cookies_get/set/clear against what the fixture server receives, and the
// storage_local_* / storage_session_* tools against what the page reads.
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';

describe('cookies and storage', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  const echoed = async () => {
    await call('open', { url: suite.fixtures.url('echo') });
    return JSON.parse(await callText(mcp, 'get_text', { selector: '#echo' })).headers;
  };

  it('shows HttpOnly cookies, sets cookies a server receives, clears them', { timeout: 60_000 }, logged(async () => {
    await callError(mcp, 'cookies_get', {}, 'INVALID_PARAMS'); // about:blank has none
    await call('open', { url: suite.fixtures.url('set-cookie?name=sid&value=s3cret&httponly=1') });
    const got = await call('cookies_get');
    const sid = got.cookies.find((c) => c.name === 'sid');
    assert.equal(sid.value, 's3cret');
    assert.equal(sid.httpOnly, true, 'an HttpOnly cookie is visible to the agent');
    assert.equal((await call('eval', { script: 'document.cookie' })).value, '', 'but not to the page');

    const set = await call('cookies_set', { name: 'theme', value: 'dark', expires: 4102444800, sameSite: 'strict', httpOnly: true });
    assert.deepEqual([set.set.domain, set.set.path, set.set.expires, set.set.sameSite, set.set.httpOnly],
      ['127.0.0.1', '/', 4102444800, 'Strict', true]);
    assert.equal((await echoed()).cookie, 'sid=s3cret; theme=dark', 'the server received both');

    await call('cookies_set', { name: 'elsewhere', value: '1', domain: 'example.test' });
    const all = await call('cookies_get', { all: true });
    assert.deepEqual(all.cookies.map((c) => c.name).sort(), ['elsewhere', 'sid', 'theme']);
    const forUrl = await call('cookies_get', { url: 'http://example.test/' });
    assert.deepEqual(forUrl.cookies.map((c) => c.name), ['elsewhere']);

    assert.equal((await call('cookies_clear', { domain: 'nowhere.test' })).cookies, 0);
    await call('cookies_clear', { domain: '127.0.0.1' });
    assert.equal((await echoed()).cookie, undefined, 'the server gets no cookie any more');
    assert.deepEqual((await call('cookies_get', { all: true })).cookies.map((c) => c.name), ['elsewhere']);
    await call('cookies_clear');
    assert.equal((await call('cookies_get', { all: true })).count, 0);

    // A domain's cookies and its subdomains', never its parent's.
    for (const [name, domain] of [['sub', 'a.example.test'], ['deeper', 'x.a.example.test'], ['parent', '.example.test'], ['sibling', 'b.example.test']]) {
      await call('cookies_set', { name, value: '1', domain });
    }
    assert.deepEqual(await call('cookies_clear', { domain: 'a.example.test' }), { cleared: 'a.example.test', cookies: 2 });
    assert.deepEqual((await call('cookies_get', { all: true })).cookies.map((c) => c.name).sort(), ['parent', 'sibling']);
    await call('cookies_clear');

    await callError(mcp, 'cookies_set', { name: 'bad;name', value: 'x' }, 'INVALID_PARAMS');
    await callError(mcp, 'cookies_set', { name: 'ok', value: 'x', sameSite: 'sometimes' }, 'INVALID_PARAMS');
  }));

  it('reads and writes localStorage and sessionStorage of the page', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    const page = (script) => call('eval', { script }).then((r) => r.value);
    await page("localStorage.clear(); localStorage.setItem('from-page', 'yes'); sessionStorage.clear(); 1");
    assert.deepEqual((await call('storage_local_set', { key: 'token', value: 'abc' })).value, 'abc');
    assert.equal(await page("localStorage.getItem('token')"), 'abc', 'the page reads what was set');
    const local = await call('storage_local_get');
    assert.deepEqual(local.items, { 'from-page': 'yes', token: 'abc' });
    assert.equal(local.count, 2);
    assert.equal((await call('storage_local_get_key', { key: 'from-page' })).value, 'yes');
    assert.equal((await call('storage_local_get_key', { key: 'missing' })).value, null);
    await call('storage_session_set', { key: 'step', value: '2' });
    assert.equal(await page("sessionStorage.getItem('step')"), '2');
    assert.deepEqual((await call('storage_session_get')).items, { step: '2' });
    assert.equal((await call('storage_session_get_key', { key: 'step' })).value, '2');
    assert.equal((await call('storage_session_clear')).cleared, 1);
    assert.equal((await call('storage_local_clear')).cleared, 2);
    assert.equal(await page('localStorage.length + sessionStorage.length'), 0);
    await call('open', { url: 'about:blank' });
    assert.match(await callError(mcp, 'storage_local_get', {}, 'UNSUPPORTED'), /has no localStorage/);
  }));
});
