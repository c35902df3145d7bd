// A site's password prompt (HTTP authentication) with no credentials given:
// the agent is told at once, its input is refused while the prompt covers the
// page, and once the person answers it (typing through the X server into the
// prompt, the browser started as a person starts it, its panel window open)
// the agent's input reaches the page again. A tab closed while its prompt
// waits takes the prompt with it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { TEST_NSEC, callError, callJson } from './support/mcp.mjs';

describe('a site\'s password prompt', { timeout: 180_000 }, () => {
  let session;
  let display;
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => session.browser, fn));
  const call = (tool, args = {}) => callJson(session.mcp, tool, args);
  const xdo = (...args) => execFileSync('xdotool', args, { env: { ...process.env, ...display } }).toString().trim();

  before(async () => {
    session = await startLoggedIn({ baseArgs: ['--headless', '--ephemeral', '--port', '0', '--log-level', 'info'] });
    display = session.browser.x11Env();
  }, { timeout: 90_000 });

  after(async () => { await session?.stop(); });

  test('refuses the agent\'s input until the person answers the prompt', async () => {
    const { mcp, fixtures } = session;
    assert.match(await callError(mcp, 'open', { url: fixtures.url('/auth') }, 'NAVIGATION_FAILED'),
      /realm "fixtures".*set_credentials/);
    assert.match(await callError(mcp, 'click', { selector: 'body' }, 'NOT_INTERACTABLE'), /prompt over the page/);
    // The person types the user and password into the prompt in the tabs' window.
    const window = xdo('search', '--name', '^Sovereign Browser$').split('\n')[0];
    xdo('windowfocus', '--sync', window);
    xdo('type', '--delay', '20', 'agent');
    xdo('key', 'Tab');
    xdo('type', '--delay', '20', 's3cret');
    xdo('key', 'Return');
    await call('wait_for_text', { text: 'welcome agent', timeout: 10_000 });
    assert.deepEqual(await call('get_title'), { title: 'Welcome' });
    // The prompt ended: the agent's input reaches the page again.
    assert.equal((await call('click', { selector: '#auth' })).clicked, true);
  });

  test('a tab closed while its prompt waits takes the prompt with it', async () => {
    const { mcp, fixtures } = session;
    // A context of its own: the person's answer is kept for the first one's session.
    await call('context_new', { name: 'prompts' });
    await call('login', { method: 'local', nsec: TEST_NSEC });
    const before = (await call('tab_list')).tabs.length;
    const tab = await call('tab_new');
    await callError(mcp, 'open', { url: fixtures.url('/auth?closing') }, 'NAVIGATION_FAILED');
    await call('tab_close', { index: tab.index });
    assert.equal((await call('tab_list')).tabs.length, before);
    // The browser goes on; another tab's prompt is its own.
    await callError(mcp, 'open', { url: fixtures.url('/auth?later') }, 'NAVIGATION_FAILED');
    await call('set_credentials', { user: 'agent', pass: 's3cret' });
    assert.equal((await call('open', { url: fixtures.url('/auth?later') })).title, 'Welcome');
    assert.equal((await call('click', { selector: '#auth' })).clicked, true);
  });
});
