// A password typed into a page is never handed to an agent by what the page
// sends: the browser is started as a person starts it (its panel window
// open), the person types into their own window through the X server, and
// the agent reads the network log. A form's post holding a password, and
// every request a page starts once a password was typed into it, are
// withheld for good: leaving the page does not hand them over, nor does
// the person's HAR export.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';
import { browsingWindow } from './support/windows.mjs';

describe('typed secrets, as a person starts the browser', { timeout: 240_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  let panel;
  const test = (name, fn) => it(name, { timeout: 90_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const xdo = (...args) => execFileSync('xdotool', args, { env: { ...process.env, ...browser.x11Env() } }).toString().trim();

  /** The browsing window (not the panel's), once it is mapped. */
  const browsingWindowId = () => waitFor(() => browsingWindow(xdo), 'the browsing window beside the panel\'s');

  /** The person clicks the field `selector` of the front tab and types `text`. */
  async function personTypes(selector, text) {
    const box = await call('get_box', { selector });
    const { pages } = await agentCall(panel, 'window_layout');
    const id = await browsingWindowId();
    xdo('windowfocus', '--sync', id);
    xdo('mousemove', '--window', id, String(pages.x + box.x + Math.floor(box.width / 2)), String(pages.y + box.y + Math.floor(box.height / 2)));
    xdo('click', '1');
    xdo('type', '--delay', '20', text);
    // A password field's value reads masked, with its length.
    await waitFor(async () => {
      const read = await call('get_value', { selector });
      return (read.length ?? read.value.length) === text.length;
    }, `the page to have what the person typed into ${selector}`);
  }

  /** The newest request whose URL holds `part`, once it ended, as network_request shows it. */
  async function loggedRequest(part, method = 'POST') {
    const listed = await waitFor(async () => {
      const { requests } = await call('network_requests', { url: part, all: true });
      return requests.findLast((r) => r.method === method && !r.pending);
    }, `the ${method} to ${part} in the log`);
    return call('network_request', { id: listed.id });
  }

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser({ baseArgs: ['--headless', '--ephemeral', '--port', '0', '--log-level', 'info'] });
    mcp = await connectMcp(browser);
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    panel = await connectPanel(browser);
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await panel?.close();
    await browser?.stop();
    await fixtures?.close();
  });

  test('the person signs up in their own window: the post reaches the site, and no agent reads the password in it', async () => {
    await call('open', { url: fixtures.url('form.html') });
    await personTypes('#name', 'Ada');
    await personTypes('#password', 'hunter2');
    xdo('key', 'Return');
    await waitFor(() => fixtures.submitted().at(-1)?.password === 'hunter2', 'the site to get the form');
    await waitFor(async () => (await call('get_title')).title === 'Submitted', 'the page the form led to');

    const post = await loggedRequest('/submit');
    assert.equal(post.withheld, true, JSON.stringify(post));
    assert.equal(post.request_body, null);
    assert.match(post.request_body_note, /^withheld, for good: .*password/);
    // (The page the site answered shows the password back: what a site does with it is its own.)
    const { body: _answer, ...request } = post;
    assert.ok(!JSON.stringify(request).includes('hunter2'), JSON.stringify(request));

    // The person's own export names the entries, never their values.
    const tab = (await call('tab_list')).tabs.find((t) => t.current).id;
    const har = await agentCall(panel, 'network_har', { tab, all: true });
    const entry = JSON.parse(readFileSync(har.path, 'utf8')).log.entries
      .find((e) => e.request.method === 'POST' && e.request.url.includes('/submit'));
    assert.ok(!JSON.stringify(entry.request).includes('hunter2'), JSON.stringify(entry.request));
    assert.deepEqual(entry.request.postData.params.map((p) => p.name), ['name', 'email', 'password', 'country', 'comments']);
    assert.match(entry.request.postData.comment, /^withheld, for good/);
  });

  test('a page the person typed a password into: what its scripts send is withheld, after the page is left too', async () => {
    await call('open', { url: fixtures.url('person-post.html') });
    await call('fill', { selector: '#note', value: 'before' });
    await call('click', { selector: '#send' });
    assert.equal((await loggedRequest('typed=1')).request_body, 'before|', 'before a password was typed, the body shows');

    await personTypes('#password', 'hunter2');
    await call('click', { selector: '#send' });
    const sent = await waitFor(async () => {
      const got = await loggedRequest('typed=1');
      return got.withheld && got;
    }, 'the post sent after the password');
    assert.equal(sent.request_body, null);
    assert.ok(!JSON.stringify(sent).includes('hunter2'), JSON.stringify(sent));

    await call('open', { url: fixtures.url('links.html') });
    const later = await call('network_request', { id: sent.id });
    assert.equal(later.request_body, null, 'leaving the page hands nothing over');
    assert.ok(!JSON.stringify(later).includes('hunter2'), JSON.stringify(later));
  });
});
