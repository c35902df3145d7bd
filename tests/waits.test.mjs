// wait_for_text, wait_for_url, wait_for_load, wait_for_fn, and batch. Waits are
// released by timed page changes; they fail with TIMEOUT naming what they saw.
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { TEST_NSEC, callError } from './support/mcp.mjs';

describe('waits and batch', { timeout: 180_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  const later = (ms, script) => call('eval', { script: `setTimeout(() => { ${script} }, ${ms}); true` });

  it('wait_for_text is released when the text appears, and times out saying what it saw', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await later(300, "document.body.insertAdjacentHTML('beforeend', '<p>Order confirmed</p>')");
    const found = await call('wait_for_text', { text: 'Order confirmed', timeout: 5000 });
    assert.equal(found.found, true);
    assert.ok(found.waited_ms >= 200, `released by the change, after ${found.waited_ms} ms`);
    const started = Date.now();
    const message = await callError(mcp, 'wait_for_text', { text: 'Never here', timeout: 400 }, 'TIMEOUT');
    const took = Date.now() - started;
    assert.ok(took >= 400 && took < 5000, `gave up after ${took} ms`);
    assert.match(message, /"Never here" within 400 ms \(last seen: \d+ characters of text, starting/);
  }));

  it('wait_for_url takes globs, regexes and plain text', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await later(200, "history.pushState({}, '', '/checkout/done?id=7')");
    assert.match((await call('wait_for_url', { url_pattern: '**/checkout/*?id=*', timeout: 5000 })).url, /\/checkout\/done\?id=7$/);
    await later(200, "history.pushState({}, '', '/receipt/42')");
    assert.match((await call('wait_for_url', { url_pattern: '/RECEIPT\\/\\d+$/i', timeout: 5000 })).url, /receipt\/42$/);
    await later(200, "history.pushState({}, '', '/thanks')");
    assert.match((await call('wait_for_url', { url_pattern: '/thanks', timeout: 5000 })).url, /\/thanks$/);
    const message = await callError(mcp, 'wait_for_url', { url_pattern: '**/never', timeout: 300 }, 'TIMEOUT');
    assert.match(message, /last seen: http:\/\/127\.0\.0\.1:\d+\/thanks/);
    await callError(mcp, 'wait_for_url', { url_pattern: '/([/', timeout: 300 }, 'INVALID_PARAMS');
  }));

  it('wait_for_url searches a bare regex in the URL; a whole URL matches itself', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await later(200, "history.pushState({}, '', '/step/done.html')");
    assert.match((await call('wait_for_url', { url_pattern: 'done\\.html$', timeout: 5000 })).url, /\/step\/done\.html$/);
    await later(200, "history.pushState({}, '', '/orders/42?tab=1')");
    assert.match((await call('wait_for_url', { url_pattern: '/orders/\\d+', timeout: 5000 })).url, /\/orders\/42\?tab=1$/);
    const whole = suite.fixtures.url('orders/42?tab=1');
    assert.equal((await call('wait_for_url', { url_pattern: whole, timeout: 2000 })).url, whole);
    const invalid = await mcp.callTool('wait_for_url', { url_pattern: 'done(', timeout: 300 });
    assert.equal(invalid.structuredContent?.error?.code, 'INVALID_PARAMS');
    assert.equal(invalid.structuredContent?.error?.field, 'url_pattern');
  }));

  it('wait_for_load waits for a navigation and for a quiet network', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    // A script's navigation starts after the script has returned: wait for
    // its address first, then for its load (the page before it had loaded).
    await call('eval', { script: "location.href = '/slow?ms=600'; true" });
    await call('wait_for_url', { url_pattern: '/\\/slow\\?ms=600$/', timeout: 10_000 });
    const loaded = await call('wait_for_load', { state: 'load', timeout: 10_000 });
    assert.match(loaded.url, /\/slow\?ms=600$/);
    assert.equal((await call('eval', { script: "document.getElementById('slow').textContent" })).value, 'Served after 600 ms');

    await call('eval', { script: "window.fetched = false; fetch('/slow?ms=700').then(() => { window.fetched = true; }); true" });
    const idle = await call('wait_for_load', { state: 'networkidle', timeout: 10_000 });
    assert.equal(idle.state, 'networkidle');
    assert.equal((await call('eval', { script: 'window.fetched' })).value, true, 'the request had finished');

    await call('eval', { script: "location.href = '/slow?ms=300'; true" });
    await call('wait_for_url', { url_pattern: '/\\/slow\\?ms=300$/', timeout: 10_000 });
    const parsed = await call('wait_for_load', { state: 'domcontentloaded', timeout: 10_000 });
    assert.equal(parsed.state, 'domcontentloaded');
    await callError(mcp, 'wait_for_load', { state: 'sometime' }, 'INVALID_PARAMS');
  }));

  it('wait_for_fn returns the first truthy value', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await later(300, 'window.answer = { total: 42 }');
    const result = await call('wait_for_fn', { script: 'window.answer && window.answer.total', timeout: 5000, polling: 50 });
    assert.equal(result.value, 42);
    const awaited = await call('wait_for_fn', { script: 'return await Promise.resolve("ready")', timeout: 2000 });
    assert.equal(awaited.value, 'ready');
    assert.match(await callError(mcp, 'wait_for_fn', { script: 'window.missing', timeout: 300 }, 'TIMEOUT'), /last seen: null/);
    await callError(mcp, 'wait_for_fn', { script: 'this is not javascript(', timeout: 300 }, 'INVALID_PARAMS');
  }));

  it('wait_for_fn and eval run statements ending in return, without await too', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('form.html') });
    await later(300, 'window.step = 2');
    const waited = await call('wait_for_fn', { script: "const step = window.step; return step === 2 && document.readyState === 'complete'", timeout: 5000 });
    assert.equal(waited.value, true);
    assert.equal((await call('wait_for_fn', { script: "return document.readyState === 'complete'", timeout: 2000 })).value, true);
    assert.deepEqual(await call('eval', { script: 'const n = 6; return n * 7' }), { type: 'number', value: 42 });
    assert.deepEqual(await call('eval', { script: 'return document.title' }), { type: 'string', value: await call('eval', { script: 'document.title' }).then((r) => r.value) });
    await callError(mcp, 'eval', { script: 'return (' }, 'JS_ERROR');
  }));

  it('batch runs commands through the same dispatch and stops at the first failure', { timeout: 30_000 }, logged(async () => {
    const url = suite.fixtures.url('form.html');
    const done = await call('batch', { commands: [
      { tool: 'open', params: { url } },
      { tool: 'fill', params: { selector: '#name', value: 'Batched' } },
      { tool: 'get_value', params: { selector: '#name' } },
      { tool: 'get_title' },
    ] });
    assert.equal(done.ok, true);
    assert.deepEqual(done.results.map((r) => r.tool), ['open', 'fill', 'get_value', 'get_title']);
    assert.equal(done.results[2].result.value, 'Batched');

    const stopped = await call('batch', { commands: [
      { tool: 'get_url' },
      { tool: 'click', params: { selector: '#no-such-thing' } },
      { tool: 'get_title' },
    ] });
    assert.deepEqual([stopped.ok, stopped.run, stopped.failed, stopped.skipped], [false, 2, 1, 1]);
    assert.equal(stopped.results[1].error.code, 'ELEMENT_NOT_FOUND');

    const onward = await call('batch', { continueOnError: true, commands: [
      { tool: 'no_such_tool' },
      { tool: 'get_title' },
    ] });
    assert.deepEqual([onward.run, onward.failed], [2, 1]);
    assert.equal(onward.results[0].error.code, 'UNKNOWN_TOOL');
    assert.equal(onward.results[1].ok, true);

    const nested = { tool: 'batch', params: { commands: [{ tool: 'batch', params: { commands: [{ tool: 'get_url' }] } }] } };
    const deep = await call('batch', { commands: [nested] });
    const inner = deep.results[0].result.results[0];
    assert.equal(inner.error.code, 'INVALID_PARAMS');
    assert.match(inner.error.message, /nest at most 2 deep/);
  }));

  it('batch itself works before login; each command still needs it', { timeout: 30_000 }, logged(async () => {
    await call('logout');
    const gated = await call('batch', { continueOnError: true, commands: [
      { tool: 'login_status' },
      { tool: 'get_url' },
    ] });
    assert.equal(gated.results[0].result.logged_in, false);
    assert.equal(gated.results[1].error.code, 'NOT_LOGGED_IN');
    const back = await call('batch', { commands: [
      { tool: 'login', params: { method: 'local', nsec: TEST_NSEC } },
      { tool: 'get_url' },
    ] });
    assert.equal(back.ok, true);
  }));
});
