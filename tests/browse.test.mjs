// Browsing as an assistant or a script would: every scenario runs twice,
// over MCP (the official SDK client) and over the /agent WebSocket, through
// one driver (support/driver.mjs). What only one transport has (MCP content
// blocks, /agent message framing) is tested in its own block below them.
import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { closedPort, startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NPUB, TEST_NSEC, TEST_PUBKEY } from './support/mcp.mjs';
import { agentOk, connectAgent } from './support/agent.mjs';
import { TRANSPORTS, connectDriver } from './support/driver.mjs';
import { findNode, parseSnapshot, refList, refOf } from './support/snapshot.mjs';
import { assertPngBase64 } from './support/png.mjs';

for (const transport of TRANSPORTS) describe(`browsing over ${transport}`, { timeout: 420_000 }, () => {
  let browser;
  let fixtures;
  let d;
  const test = (name, fn, opts = {}) => it(name, { timeout: 60_000, ...opts }, withBrowserLog(() => browser, fn));

  const call = (tool, args = {}, what) => d.call(tool, args, what);
  const text = (tool, args = {}) => d.text(tool, args);
  const fail = (tool, args, code) => d.error(tool, args, code);
  const page = (p) => fixtures.url(p);

  async function ensureLoggedIn() {
    if (!(await call('login_status')).logged_in) await call('login', { method: 'local', nsec: TEST_NSEC });
  }

  /** Close every tab but the first and make it current. */
  async function resetTabs() {
    // A failure here fails the test that follows: it would otherwise run in
    // whatever tab the last one left.
    const { tabs } = await call('tab_list');
    for (const t of [...tabs].sort((a, b) => b.index - a.index)) {
      if (t.index !== 0) await call('tab_close', { index: t.index });
    }
    await call('tab_switch', { index: 0 });
  }

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser();
    d = await connectDriver(browser, transport);
  }, { timeout: 90_000 });

  after(async () => {
    await d?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  describe('identity', () => {
    test('a browser tool before login answers NOT_LOGGED_IN', async () => {
      await call('logout');
      await fail('get_url', {}, 'NOT_LOGGED_IN');
    });

    test('login with a local nsec reports the npub, and never the secret', async () => {
      await call('logout');
      const { result: login, raw } = await d.callRaw('login', { method: 'local', nsec: TEST_NSEC });
      assert.equal(login.logged_in, true);
      assert.equal(login.method, 'local');
      assert.equal(login.npub, TEST_NPUB);
      assert.equal(login.pubkey, TEST_PUBKEY);
      assert.ok(!JSON.stringify(raw).includes(TEST_NSEC), 'the login result contains the nsec');

      const status = await d.callRaw('login_status');
      assert.equal(status.result.logged_in, true);
      assert.equal(status.result.method, 'local');
      assert.equal(status.result.npub, TEST_NPUB);
      assert.ok(!JSON.stringify(status.raw).includes(TEST_NSEC), 'login_status contains the nsec');
    });

    test('switch_identity to readonly keeps browser tools working', async () => {
      await ensureLoggedIn();
      const ro = await call('switch_identity', { method: 'readonly', npub: TEST_NPUB });
      assert.equal(ro.logged_in, true);
      assert.equal(ro.method, 'readonly');
      assert.equal(ro.npub, TEST_NPUB);
      await call('get_url');
      const back = await call('switch_identity', { method: 'local', nsec: TEST_NSEC });
      assert.equal(back.method, 'local');
    });

    test('logout, then a browser tool answers NOT_LOGGED_IN', async () => {
      await ensureLoggedIn();
      const out = await call('logout');
      assert.equal(out.logged_in, false);
      await fail('get_url', {}, 'NOT_LOGGED_IN');
      await fail('open', { url: page('/form.html') }, 'NOT_LOGGED_IN');
      assert.equal((await call('login_status')).logged_in, false);
      await call('login', { method: 'local', nsec: TEST_NSEC });
      await call('get_url');
    });
  });

  describe('calls', () => {
    beforeEach(async () => { await ensureLoggedIn(); });

    test('bad params answer INVALID_PARAMS', async () => {
      await fail('open', {}, 'INVALID_PARAMS');
    });

    test('several calls in flight each get their own answer', async () => {
      await call('open', { url: page('/links.html') });
      const answers = await Promise.all([
        call('get_url'), call('get_title'), call('get_url'), call('get_title'), call('get_url'),
      ]);
      assert.deepEqual(answers, [
        { url: page('/links.html') }, { title: 'Links' }, { url: page('/links.html') }, { title: 'Links' }, { url: page('/links.html') },
      ]);
    });
  });

    describe('pages', () => {
      beforeEach(async () => { await ensureLoggedIn(); await resetTabs(); });

      test('open reports the url and title; get_url and get_title agree', async () => {
        const opened = await call('open', { url: page('/form.html') });
        assert.deepEqual(opened, { url: page('/form.html'), title: 'Sign up' });
        assert.deepEqual(await call('get_url'), { url: page('/form.html') });
        assert.deepEqual(await call('get_title'), { title: 'Sign up' });
      });

      test('open of an address where nothing listens answers NAVIGATION_FAILED', async () => {
        const port = await closedPort();
        const message = await fail('open', { url: `http://127.0.0.1:${port}/` }, 'NAVIGATION_FAILED');
        assert.ok(message.includes(`127.0.0.1:${port}`), `the message names the address: ${message}`);
      });

      test('snapshot shows the form controls with refs', async () => {
        await call('open', { url: page('/form.html') });
        const snap = await text('snapshot', { interactive: true, compact: true });
        const lines = snap.split('\n');
        assert.equal(lines[0], `url: ${page('/form.html')}`, `first line: ${lines[0]}`);
        assert.equal(lines[1], 'title: Sign up', `second line: ${lines[1]}`);
        const full = await text('snapshot', { interactive: true });
        assert.ok(full.startsWith(`url: ${page('/form.html')}\ntitle: Sign up\n`), `snapshot head:\n${full.slice(0, 300)}`);
        for (const needle of [
          'textbox "Name"', 'textbox "Email"', 'combobox "Country"',
          'checkbox "I agree"', 'textbox "Comments"', 'button "Create account"',
        ]) {
          const line = new RegExp(`^e\\d+ ${needle}`, 'm');
          assert.match(snap, line, `snapshot lacks ${needle} with a ref:\n${snap}`);
        }
        findNode(snap, null, 'Password');
        const agree = findNode(snap, 'checkbox', 'I agree');
        assert.ok(!agree.flags.checked, `checkbox starts unchecked: ${agree.line}`);
        const refs = parseSnapshot(snap).nodes.filter((n) => n.ref).map((n) => n.ref);
        assert.equal(new Set(refs).size, refs.length, `duplicate refs:\n${snap}`);
      });

      test('refs stay the same across two snapshots of the same page', async () => {
        await call('open', { url: page('/form.html') });
        const first = await text('snapshot');
        await call('fill', { selector: '#name', value: 'changed' });
        const second = await text('snapshot');
        assert.ok(refList(first).length >= 7, `too few refs:\n${first}`);
        assert.deepEqual(refList(second), refList(first));
      });

      test('fill the sign-up form by ref, tick the box, submit by clicking the button', async () => {
        await call('open', { url: page('/form.html') });
        const snap = await text('snapshot');
        const ref = {
          name: refOf(snap, 'textbox', 'Name'),
          email: refOf(snap, 'textbox', 'Email'),
          password: findNode(snap, null, 'Password').ref, // written without the @
          country: refOf(snap, 'combobox', 'Country'),
          agree: refOf(snap, 'checkbox', 'I agree'),
          comments: refOf(snap, 'textbox', 'Comments'),
          submit: refOf(snap, 'button', 'Create account'),
        };
        const values = {
          name: 'Ada Lovelace',
          email: 'ada@example.org',
          password: 'correct horse battery',
          comments: 'Hello <world> & "friends"',
        };
        for (const [field, value] of Object.entries(values)) {
          // A password is never echoed: its length says it was filled.
          const shown = field === 'password' ? { value: '•'.repeat(16), masked: true, length: value.length } : { value };
          assert.deepEqual(await call('fill', { ref: ref[field], value }), shown, `fill ${field}`);
        }
        assert.deepEqual(await call('fill', { ref: ref.country, value: 'Germany' }), { value: 'Germany', trusted_events: false }, 'select by fill');

        const tick = await call('click', { ref: ref.agree });
        assert.equal(tick.clicked, true);
        assert.equal(tick.navigated, false);
        assert.ok(!('url' in tick) && !('new_tabs' in tick), `the page as it was is not said again: ${JSON.stringify(tick)}`);

        const filled = await text('snapshot');
        assert.ok(findNode(filled, 'checkbox', 'I agree').flags.checked, `checkbox not checked:\n${filled}`);
        assert.equal(findNode(filled, 'textbox', 'Name').value, 'Ada Lovelace', `Name value in snapshot:\n${filled}`);

        const submit = await call('click', { ref: ref.submit });
        assert.equal(submit.clicked, true);
        assert.equal(submit.navigated, true, `click result: ${JSON.stringify(submit)}`);
        assert.ok(submit.url.includes('/submit'), `url after submit: ${submit.url}`);
        assert.equal(submit.title, 'Submitted');
        assert.ok(!('new_tabs' in submit), 'no new tabs, nothing said of them');

        const got = async (field) => (await text('get_text', { selector: `#got-${field}` })).trim();
        for (const [field, value] of Object.entries(values)) assert.equal(await got(field), value, `submitted ${field}`);
        assert.equal(await got('country'), 'Germany');
        assert.equal(await got('agree'), 'yes');
        assert.equal((await text('get_text', { selector: '#method' })).trim(), 'POST');

        assert.ok((await call('get_url')).url.includes('/submit'));
        assert.deepEqual(await call('get_title'), { title: 'Submitted' });
      });

      test('type appends to the value', async () => {
        await call('open', { url: page('/form.html') });
        const name = refOf(await text('snapshot'), 'textbox', 'Name');
        assert.equal((await call('fill', { ref: name, value: 'Ada' })).value, 'Ada');
        assert.equal((await call('type', { ref: name, value: ' Lovelace' })).value, 'Ada Lovelace');
        const inPage = await call('eval', { script: "document.getElementById('name').value" });
        assert.equal(inPage.value, 'Ada Lovelace');
      });

      test('press Enter in a text field submits its form', async () => {
        await call('open', { url: page('/form.html') });
        const name = refOf(await text('snapshot'), 'textbox', 'Name');
        await call('fill', { ref: name, value: 'Grace Hopper' });
        assert.deepEqual(await call('focus', { ref: name }), { focused: true });
        const r = await call('press', { key: 'Enter' });
        assert.equal(r.key, 'Enter');
        assert.equal(r.navigated, true, `press result: ${JSON.stringify(r)}`);
        assert.ok(r.url.includes('/submit'), `url after Enter: ${r.url}`);
        assert.equal(r.title, 'Submitted');
        assert.equal((await text('get_text', { selector: '#got-name' })).trim(), 'Grace Hopper');
      });

      test('back and forward return to the previous pages', async () => {
        await call('open', { url: page('/form.html') });
        await call('open', { url: page('/links.html') });
        assert.deepEqual(await call('back'), { url: page('/form.html'), title: 'Sign up' });
        assert.equal((await call('get_url')).url, page('/form.html'));
        assert.deepEqual(await call('forward'), { url: page('/links.html'), title: 'Links' });
        assert.equal((await call('get_title')).title, 'Links');
      });

      test('reload loads the page again', async () => {
        await call('open', { url: page('/dynamic.html') });
        await call('click', { selector: '#add-later' });
        await call('wait_for', { selector: '#late', timeout: 5000 });
        const r = await call('reload');
        assert.deepEqual(r, { url: page('/dynamic.html'), title: 'Dynamic' });
        const gone = await call('eval', { script: "document.getElementById('late') === null" });
        assert.equal(gone.value, true, 'the element added before the reload is still there');
      });

      test('screenshot returns a PNG', async () => {
        await call('open', { url: page('/form.html') });
        const img = await d.image('screenshot');
        assert.equal(img.mimeType, 'image/png');
        const { width, height } = assertPngBase64(img.data, 'screenshot');
        assert.ok(width >= 200 && height >= 200, `screenshot is ${width}x${height}`);
      });
    });

    describe('refs', () => {
      beforeEach(async () => { await ensureLoggedIn(); await resetTabs(); });

      test('a ref from a page navigated away from is STALE_REF', async () => {
        await call('open', { url: page('/links.html') });
        const link = refOf(await text('snapshot'), 'link', 'Go to the form');
        // The form page has more elements, so a ref number alone would resolve there.
        await call('open', { url: page('/form.html') });
        await fail('click', { ref: link }, 'STALE_REF');
        await fail('fill', { ref: link, value: 'x' }, 'STALE_REF');
        assert.equal((await call('get_url')).url, page('/form.html'), 'the stale click navigated');
        assert.equal((await call('eval', { script: "document.getElementById('name').value" })).value, '',
          'the stale fill wrote into the new page');
      });

      test('a ref whose element was removed is STALE_REF', async () => {
        await call('open', { url: page('/dynamic.html') });
        const snap = await text('snapshot');
        const doomed = refOf(snap, 'button', 'Doomed');
        const remove = refOf(snap, 'button', 'Remove the doomed button');
        await call('click', { ref: remove });
        await fail('click', { ref: doomed }, 'STALE_REF');
        await fail('get_text', { ref: doomed }, 'STALE_REF');
      });

      test('an unknown selector is ELEMENT_NOT_FOUND', async () => {
        await call('open', { url: page('/form.html') });
        await fail('click', { selector: '#no-such-element' }, 'ELEMENT_NOT_FOUND');
      });
    });

    describe('reading and pointing', () => {
      beforeEach(async () => { await ensureLoggedIn(); await resetTabs(); });

      test('get_text and get_attr by ref, get_html by selector', async () => {
        await call('open', { url: page('/links.html') });
        const snap = await text('snapshot');
        const blank = refOf(snap, 'link', 'Open the form in a new tab');
        assert.equal((await text('get_text', { ref: blank })).trim(), 'Open the form in a new tab');
        assert.deepEqual(await call('get_attr', { ref: blank, attr: 'target' }), { attr: 'target', value: '_blank' });
        assert.deepEqual(await call('get_attr', { ref: blank, attr: 'data-missing' }), { attr: 'data-missing', value: null });
        const html = await text('get_html', { selector: 'p:has(#to-form)' });
        assert.equal(html.trim(), '<a id="to-form" href="/form.html">Go to the form</a>');
      });

      test('hover moves the pointer over the element', async () => {
        await call('open', { url: page('/dynamic.html') });
        const target = refOf(await text('snapshot'), 'button', 'Hover me');
        assert.deepEqual(await call('hover', { ref: target }), { hovered: true });
        assert.equal((await text('get_text', { selector: '#hover-me' })).trim(), 'Hovered');
      });

      test('scroll moves the page and reports the position', async () => {
        await call('open', { url: page('/links.html') });
        const down = await call('scroll', { direction: 'down', amount: 400 });
        assert.ok(Math.abs(down.scrollY - 400) <= 50, `scroll down 400: ${JSON.stringify(down)}`);
        assert.equal((await call('eval', { script: 'window.scrollY' })).value, down.scrollY,
          'reported scrollY differs from the page\'s');
        const up = await call('scroll', { direction: 'up', amount: 400 });
        assert.equal(up.scrollY, 0, `scroll up: ${JSON.stringify(up)}`);
      });
    });

    describe('script and waiting', () => {
      beforeEach(async () => { await ensureLoggedIn(); await resetTabs(); });

      test('eval returns values and reports errors as JS_ERROR', async () => {
        await call('open', { url: page('/form.html') });
        const value = async (script) => (await call('eval', { script })).value;
        assert.equal(await value('1+1'), 2);
        assert.equal(await value('document.title'), 'Sign up');
        assert.equal(await value('const a = 2; a * 21'), 42);
        assert.equal(await value("new Promise((r) => setTimeout(() => r('later'), 50))"), 'later');
        assert.deepEqual(await value('({ a: [1, "two", null] })'), { a: [1, 'two', null] });
        const thrown = await fail('eval', { script: "throw new Error('boom')" }, 'JS_ERROR');
        assert.match(thrown, /boom/);
        const rejected = await fail('eval', { script: "Promise.reject(new Error('nope'))" }, 'JS_ERROR');
        assert.match(rejected, /nope/);
        assert.equal(await value('1+1'), 2, 'eval works after errors');
      });

      test('wait_for finds an element that appears later', async () => {
        await call('open', { url: page('/dynamic.html') });
        await call('click', { selector: '#add-later' });
        const r = await call('wait_for', { selector: '#late', timeout: 5000 });
        assert.equal(r.found, true);
        assert.match(String(r.ref), /^@?e\d+$/, `ref: ${r.ref}`);
        assert.equal(typeof r.waited_ms, 'number');
        assert.equal((await text('get_text', { ref: r.ref })).trim(), 'Arrived late');
        assert.equal((await text('get_html', { selector: '#out' })).trim(), '<p id="late">Arrived late</p>');
      });

      test('wait_for an element that never appears answers TIMEOUT', async () => {
        await call('open', { url: page('/dynamic.html') });
        const started = Date.now();
        await fail('wait_for', { selector: '#never', timeout: 500 }, 'TIMEOUT');
        const took = Date.now() - started;
        assert.ok(took >= 450 && took < 5000, `wait_for with timeout 500 took ${took} ms`);
      });

      test('wait waits', async () => {
        const started = Date.now();
        const r = await call('wait', { ms: 200 });
        assert.ok(r.waited_ms >= 200, `waited_ms ${r.waited_ms}`);
        assert.ok(Date.now() - started >= 190, 'returned too early');
      });

      test('an alert makes the next tool fail fast with DIALOG_OPEN', async () => {
        const tab = await call('tab_new', { url: page('/links.html') });
        try {
          await call('tab_switch', { index: tab.index });
          const hello = refOf(await text('snapshot'), 'button', 'Say hello');
          let started = Date.now();
          const click = await d.raw('click', { ref: hello });
          if (d.transport === 'mcp' ? click.isError : !click.ok) d.failed(click, 'DIALOG_OPEN', 'click that opens an alert');
          assert.ok(Date.now() - started < 10_000, `the click took ${Date.now() - started} ms`);
          started = Date.now();
          await fail('get_text', { selector: 'h1' }, 'DIALOG_OPEN');
          const took = Date.now() - started;
          assert.ok(took < 5000, `DIALOG_OPEN took ${took} ms (tool timeout is 30 s)`);
        } finally {
          await d.raw('tab_close', { index: tab.index });
        }
      });
    });

    describe('tabs', () => {
      beforeEach(async () => { await ensureLoggedIn(); await resetTabs(); });

      test('tab_new, tab_list, tab_switch, tab_close', async () => {
        await call('open', { url: page('/form.html') });
        const created = await call('tab_new', { url: page('/links.html') });
        assert.deepEqual(created, { index: 1, url: page('/links.html'), title: 'Links' });

        const listed = (await call('tab_list')).tabs;
        assert.equal(listed.length, 2, `tab_list: ${JSON.stringify(listed)}`);
        assert.deepEqual(listed.map((t) => [t.index, t.url]), [[0, page('/form.html')], [1, page('/links.html')]]);
        assert.equal(listed.filter((t) => t.current).length, 1, `one current tab: ${JSON.stringify(listed)}`);

        assert.deepEqual(await call('tab_switch', { index: 0 }), { index: 0, url: page('/form.html'), title: 'Sign up' });
        assert.equal((await call('get_url')).url, page('/form.html'));
        const afterSwitch = (await call('tab_list')).tabs;
        assert.ok(afterSwitch[0].current && afterSwitch[0].front, `tab 0 current and front: ${JSON.stringify(afterSwitch)}`);

        assert.deepEqual(await call('tab_switch', { index: 1 }), { index: 1, url: page('/links.html'), title: 'Links' });
        assert.equal((await call('get_title')).title, 'Links');
        await call('tab_switch', { index: 0 });

        assert.deepEqual(await call('tab_close', { index: 1 }), { closed: 1, tabs: 1 });
        const left = (await call('tab_list')).tabs;
        assert.deepEqual(left.map((t) => t.url), [page('/form.html')]);
        // An index past the end is a bad argument, which says the range.
        const bad = await d.outcome('tab_switch', { index: 5 });
        assert.equal(bad.ok, false, `tab_switch 5 with one tab: ${JSON.stringify(bad.raw)}`);
        assert.equal(bad.code, 'INVALID_PARAMS', JSON.stringify(bad.raw));
        assert.match(JSON.stringify(bad.raw), /no tab at index 5; there are 1 tabs \(0 to 0\)/);
      });

      test('a target=_blank link opens a new tab, reported in new_tabs', async () => {
        await call('open', { url: page('/links.html') });
        const link = refOf(await text('snapshot'), 'link', 'Open the form in a new tab');
        const r = await call('click', { ref: link });
        assert.equal(r.clicked, true);
        assert.equal(r.navigated, false, `the current tab navigated: ${JSON.stringify(r)}`);
        assert.ok(!('url' in r), 'the page stayed: its address is not said again');
        assert.equal(r.new_tabs?.length, 1, `new_tabs: ${JSON.stringify(r)}`);
        assert.ok(r.new_tabs[0].url.includes('/form.html'), `new tab url: ${JSON.stringify(r.new_tabs)}`);
        const tabs = (await call('tab_list')).tabs;
        assert.equal(tabs.length, 2, `tab_list: ${JSON.stringify(tabs)}`);
        const opened = tabs.find((t) => t.index === r.new_tabs[0].index);
        assert.ok(opened, `tab ${r.new_tabs[0].index} is not listed: ${JSON.stringify(tabs)}`);
        const shown = await call('tab_switch', { index: opened.index });
        assert.equal(shown.url, page('/form.html'));
      });

      test('close closes the current tab; closing the last one leaves a blank tab', async () => {
        const created = await call('tab_new', { url: page('/links.html') });
        await call('tab_switch', { index: created.index });
        assert.deepEqual(await call('close'), { closed: created.index, tabs: 1 });
        assert.equal((await call('tab_list')).tabs.length, 1);
        // The blank tab that replaces the last one must take a navigation at once;
        // a few rounds, since a race with its own first load would show only sometimes.
        for (let round = 0; round < 6; round++) {
          const last = await call('close');
          assert.equal(last.closed, 0);
          const tabs = (await call('tab_list')).tabs;
          assert.equal(tabs.length, 1, `after closing the last tab: ${JSON.stringify(tabs)}`);
          await call('get_url');
          const opened = await call('open', { url: page('/form.html') }, `open right after closing the last tab (round ${round + 1})`);
          assert.deepEqual(opened, { url: page('/form.html'), title: 'Sign up' });
        }
      });
    });

  if (transport === 'mcp') {
    describe('MCP content blocks', () => {
      beforeEach(async () => { await ensureLoggedIn(); await resetTabs(); });

      test('an unknown tool is a JSON-RPC error naming it, not a tool result', async () => {
        await assert.rejects(d.mcp.callTool('no_such_tool', {}), (err) => {
          assert.equal(err.code, -32602, `error: ${err.message}`);
          assert.match(err.message, /no_such_tool/);
          return true;
        });
      });

      test('screenshot returns a PNG image block and a text block with its size', async () => {
        await call('open', { url: page('/form.html') });
        const r = await d.mcp.callTool('screenshot', {});
        assert.ok(!r.isError, `screenshot failed: ${JSON.stringify(r).slice(0, 500)}`);
        assert.equal(r.content.length, 2);
        const [img, text] = r.content;
        assert.equal(img.type, 'image');
        assert.equal(img.mimeType, 'image/png');
        const { width, height } = assertPngBase64(img.data, 'screenshot');
        assert.ok(width >= 200 && height >= 200, `screenshot is ${width}x${height}`);
        assert.deepEqual(text, { type: 'text', text: `png, ${width} x ${height} px` });
      });
    });
  }

  if (transport === 'agent') {
    describe('/agent message framing', () => {
      beforeEach(async () => { await ensureLoggedIn(); });

      test('an unknown tool answers UNKNOWN_TOOL', async () => {
        assert.match(await fail('no_such_tool', {}, 'UNKNOWN_TOOL'), /no_such_tool/);
      });

      test('several requests in flight: every reply carries its id', async () => {
        await call('open', { url: page('/links.html') });
        const ids = [101, 102, 103, 104, 105];
        const replies = await Promise.all(ids.map((id) => d.agent.call('get_url', {}, { id })));
        assert.deepEqual(replies.map((r) => r.id), ids);
        for (const r of replies) assert.deepEqual(agentOk(r, `get_url #${r.id}`), { url: page('/links.html') });
      });

      test('a non-JSON message gets an error reply and the connection keeps working', async () => {
        d.agent.sendRaw('this is not json');
        const reply = await d.agent.nextUnmatched();
        assert.equal(reply.id, null, `reply: ${JSON.stringify(reply)}`);
        assert.equal(reply.ok, false);
        assert.equal(reply.error?.code, 'INVALID_PARAMS', `reply: ${JSON.stringify(reply)}`);
        const status = await call('login_status');
        assert.equal(typeof status.logged_in, 'boolean');
      });

      test('a second connection with the Authorization header is served beside the first', async () => {
        const other = await connectAgent(browser);
        try {
          const status = agentOk(await other.call('login_status'), 'login_status');
          assert.equal(typeof status.logged_in, 'boolean');
        } finally {
          await other.close();
        }
      });
    });
  }
});
