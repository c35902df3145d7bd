// Forms of every shape a site uses, each submitted the four ways a page can
// be (a click, Enter, submit(), requestSubmit()): the browser stays up, the
// server gets what the form holds, and the network log shows the body the
// form sent. Regression: a form post without a text field (hidden fields,
// checkboxes, a textarea, none at all) ended the whole browser with
// SIGSEGV inside WebKit's list of a form's text fields.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { LOG_FIELDS_MAX, SHAPES, WAYS, entriesOf, startSite } from './support/form-shapes.mjs';
import { startLoggedIn } from './support/session.mjs';
import { withBrowserLog } from './support/browser.mjs';
import { callJson } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

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

  // Regression: a form a script submitted, then an open at once: the open
  // took the end of the superseded post for its own load and answered with
  // the old page, and WebKit's report of the load that post interrupted
  // ("frame load interrupted", as for a download) left the next open
  // waiting 25 s for a download that never came.
  it('an open right after a script submitted a form answers with the page the tab shows', { timeout: 180_000 }, logged(async () => {
    for (let i = 0; i < 60; i++) {
      await call('open', { url: site.url(`/form/hidden?case=race-${i}`) });
      await call('eval', { script: "document.getElementById('go').form.submit(); 1" });
      const opened = await session.mcp.callTool('open', { url: site.url(`/form/text?case=next-${i}`), timeout: 10_000 });
      assert.ok(!opened.isError, `round ${i}: ${opened.content[0].text}`);
      assert.match(opened.structuredContent.url, new RegExp(`case=next-${i}$`), `round ${i}: the open's answer is its own page`);
      assert.equal((await call('get_url')).url, opened.structuredContent.url, `round ${i}: and the tab's`);
      const again = await session.mcp.callTool('open', { url: site.url(`/form/empty?case=again-${i}`), timeout: 5_000 });
      assert.ok(!again.isError, `round ${i}: the next open: ${again.content[0].text}`);
    }
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
