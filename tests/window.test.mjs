// The browser window for a person, driven as a person would: real X input
// (xdotool, through the X server) on the browser's own Xvfb display.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from './support/wait.mjs';
import { withBrowserLog, REPO_ROOT } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { connectAgent, connectPanel, agentCall, agentError } from './support/agent.mjs';
import { callError, callJson, connectMcp } from './support/mcp.mjs';


describe('the browser window', { timeout: 180_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  let panel;
  let display;
  let windowId;
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const xdo = (...args) => execFileSync('xdotool', args, { env: { ...process.env, ...display } }).toString().trim();
  // The window as the person sees it: the person's own panel connection asks.
  const layout = () => agentCall(panel, 'window_layout');
  const tabCount = async () => (await call('tab_list')).tabs.length;
  const frontIndex = async () => (await call('tab_list')).tabs.find((t) => t.front).index;
  /** Clicks the middle of a rectangle of the window. */
  const click = (rect) => {
    xdo('mousemove', '--window', windowId, String(rect.x + Math.floor(rect.width / 2)), String(rect.y + Math.floor(rect.height / 2)));
    xdo('click', '1');
  };


  let session;
  before(async () => {
    session = await startLoggedIn();
    ({ fixtures, browser, mcp } = session);
    display = browser.x11Env();
    assert.ok(display, 'the browser says which display it started, and its cookie');
    panel = await connectPanel(browser);
    windowId = xdo('search', '--name', 'Sovereign Browser').split('\n')[0];
    // No window manager: give the window the keyboard as one would.
    xdo('windowfocus', '--sync', windowId);
  }, { timeout: 90_000 });

  after(async () => {
    await panel?.close();
    await session?.stop();
  });

  test('typing a URL in the address bar opens it', async () => {
    click((await layout()).address);
    xdo('key', 'ctrl+a');
    xdo('type', '--delay', '10', fixtures.url('form.html'));
    xdo('key', 'Return');
    await waitFor(async () => (await call('get_title')).title === 'Sign up', 'the page to open');
    assert.match((await call('get_url')).url, /form\.html$/);
    await waitFor(async () => (await layout()).address_text.endsWith('form.html'), 'the address bar to show the page');
  });

  test('words that are not an address are refused with a message when no search page is set', async () => {
    xdo('key', 'ctrl+l');
    xdo('type', '--delay', '10', 'nostr clients');
    xdo('key', 'Return');
    // A refused entry keeps the words and the focus: the next key lands in the
    // address bar. Once the window shows it, the Return before it has been
    // handled (the window posts both to the loop that serves get_url, in order).
    xdo('type', '--delay', '10', '?');
    await waitFor(async () => (await layout()).address_text.endsWith('nostr clients?'),
      'the address bar to keep the refused words, and the focus');
    assert.match((await call('get_url')).url, /form\.html$/, 'nothing was opened');
  });

  test('tabs: new, switch and close with the mouse', async () => {
    const before = await tabCount();
    click((await layout()).new_tab);
    await waitFor(async () => (await tabCount()) === before + 1, 'a new tab');
    assert.equal(await frontIndex(), before, 'the new tab is in front');
    const strip = await waitFor(async () => {
      const tabs = (await layout()).tabs;
      return tabs.length === before + 1 && tabs[before].front && tabs[before].label === 'New tab' ? tabs : null;
    }, 'the strip to mark the new tab as the front one, titled New tab (not about:blank)');
    assert.deepEqual(strip.map((t) => t.front), strip.map((_, i) => i === before), 'only the front tab is marked');
    click(strip[0].title);
    await waitFor(async () => (await frontIndex()) === 0, 'the first tab in front');
    await waitFor(async () => (await layout()).tabs[0].front, 'the strip to mark the first tab');
    click((await layout()).tabs[before].close);
    await waitFor(async () => (await tabCount()) === before, 'the tab to close');
  });

  // Regression: the private display admitted every local user, who could
  // read the screen (the panel on it), type into it and read the clipboard.
  test('the private display refuses an X client without its cookie', async () => {
    const stranger = { ...process.env, DISPLAY: display.DISPLAY, XAUTHORITY: '/nonexistent' };
    assert.throws(() => execFileSync('xdotool', ['getdisplaygeometry'], { env: stranger, stdio: 'pipe' }),
      /Can't open display|Error/i, 'a client without the cookie is refused');
    assert.match(xdo('getdisplaygeometry'), /^\d+ \d+$/, 'a client with it is served');
    assert.equal(statSync(display.XAUTHORITY).mode & 0o777, 0o600, 'the cookie is the owner\'s alone');
  });

  // Regression: WebKit hands a key the page leaves unused back to the
  // window, where an agent's Control+W closed the person's tabs.
  test('an agent\'s keys reach the page only, never the window\'s shortcuts', async () => {
    await call('open', { url: fixtures.url('form.html') });
    const before = await tabCount();
    for (const key of ['Control+t', 'Control+w', 'Control+l', 'F5']) await call('press', { key });
    await call('keydown', { key: 'Control' });
    await call('press', { key: 'w' });
    await call('keyup', { key: 'Control' });
    // Each press answered after the page had its keys, and a shortcut would
    // have been queued before that answer: the window has seen them all.
    assert.equal(await tabCount(), before, 'no tab opened or closed');
    assert.match((await call('get_url')).url, /form\.html$/);
  });

  test('tabs and history with the keyboard shortcuts', async () => {
    const before = await tabCount();
    xdo('key', 'ctrl+t');
    await waitFor(async () => (await tabCount()) === before + 1, 'Ctrl+T to open a tab');
    xdo('key', 'ctrl+Tab');
    await waitFor(async () => (await frontIndex()) === 0, 'Ctrl+Tab to cycle to the first tab');
    xdo('key', 'ctrl+Tab');
    await waitFor(async () => (await frontIndex()) === before, 'Ctrl+Tab to cycle back');
    xdo('key', 'ctrl+w');
    await waitFor(async () => (await tabCount()) === before, 'Ctrl+W to close it');
    // History: open a second page in the first tab, then Alt+Left and Alt+Right.
    await call('tab_switch', { index: 0 });
    await call('open', { url: fixtures.url('links.html') });
    xdo('windowfocus', '--sync', windowId);
    xdo('key', 'alt+Left');
    // As a person would, wait for the page to have loaded before going on:
    // while the way back is still loading, there is no way forward yet.
    const loaded = async (page) => {
      const front = (await call('tab_list')).tabs.find((t) => t.front);
      return page.test(front.url) && !front.loading;
    };
    await waitFor(() => loaded(/form\.html$/), 'Alt+Left to go back');
    xdo('key', 'alt+Right');
    await waitFor(async () => /links\.html$/.test((await call('get_url')).url), 'Alt+Right to go forward');
  });

  test('pause: agents get PAUSED until the person resumes, from the window or the panel', async () => {
    assert.equal((await layout()).paused_bar, false, 'no paused bar while the agents work');
    click((await layout()).pause);
    await waitFor(async () => (await layout()).pause_active, 'the pause button to be down');
    assert.equal((await layout()).paused_bar, true, 'a bar across the window says the agents are paused');
    const why = await callError(mcp, 'get_url', {}, 'PAUSED');
    assert.match(why, /person has taken over/);
    await waitFor(async () => /get_url refused \(PAUSED\)/.test((await layout()).activity),
      'the indicator to say the call was refused, not done');
    // The bar's own button resumes, with the person's real click.
    click((await layout()).paused_resume);
    await waitFor(async () => !(await layout()).pause_active, 'the pause button to be up');
    assert.equal((await layout()).paused_bar, false, 'the bar goes once the agents may work again');
    click((await layout()).pause);
    await waitFor(async () => (await layout()).pause_active, 'the pause button to be down again');
    click((await layout()).pause);
    await waitFor(async () => !(await layout()).pause_active, 'the pause button to be up');
    assert.match((await call('get_url')).url, /links\.html$/);
    // The panel's switch does the same, and the window's button follows.
    await agentCall(panel, 'agents_pause', { paused: true });
    await callError(mcp, 'open', { url: fixtures.url('form.html') }, 'PAUSED');
    await waitFor(async () => (await layout()).pause_active, 'the window to show the pause');
    assert.equal((await layout()).paused_bar, true, 'the panel\'s pause shows the bar too');
    // Regression: an agent could resume itself after the person paused it.
    const agent = await connectAgent(browser);
    try {
      assert.match(agentError(await agent.call('agents_pause', { paused: false }), 'UNKNOWN_TOOL', 'an agent resuming'), /person's own action/);
      await callError(mcp, 'agents_pause', { paused: false }, 'UNKNOWN_TOOL');
      await callError(mcp, 'get_url', {}, 'PAUSED');
    } finally {
      agent.close();
    }
    await agentCall(panel, 'agents_pause', { paused: false });
    assert.match((await call('get_url')).url, /links\.html$/);
  });

  test('a finished download shows in the window with its saved path', async () => {
    const result = await call('open', { url: fixtures.url('report.bin') });
    assert.equal(result.downloads?.[0]?.state, 'done', JSON.stringify(result));
    const saved = result.downloads[0].path;
    assert.ok(saved.endsWith('report.bin'), saved);
    await waitFor(async () => (await layout()).downloads.includes(saved), 'the downloads bar to show the file');
  });

  test('the Panel button opens the control panel window', async () => {
    const panels = () => { try { return xdo('search', '--name', 'Control panel').length; } catch { return 0; } };
    assert.equal(panels(), 0, 'no panel window before (the browser started with --no-panel)');
    const panelButton = (await layout()).panel;
    click(panelButton);
    await waitFor(() => {
      try { return xdo('search', '--name', 'Control panel').length > 0; } catch { return false; }
    }, 'the panel window to open');
  });

  test('the window shows the identity, agent activity and the tab agents use; a screenshot is kept', async () => {
    await call('get_title');
    // The window looks at the agents' activity a few times a second.
    const l = await waitFor(async () => {
      const now = await layout();
      return /get_title/.test(now.activity) ? now : null;
    }, 'the indicator to show the call');
    assert.match(l.identity, /^local · npub10elfcs4/);
    // The toolbar stays put whatever the indicator says.
    const quiet = await layout();
    const longNamed = await connectMcp(browser, { name: 'a-client-with-a-rather-long-name-indeed' });
    try {
      await callJson(longNamed, 'get_title');
    } finally {
      await longNamed.close();
    }
    const busy = await waitFor(async () => {
      const now = await layout();
      return /rather-long-name/.test(now.activity) ? now : null;
    }, 'the indicator to show the long-named client');
    assert.notEqual(busy.activity, quiet.activity);
    assert.deepEqual(busy.activity_box, quiet.activity_box, 'the indicator keeps its size');
    assert.deepEqual(busy.address, quiet.address, 'the address bar keeps its size');
    assert.ok(l.tabs.some((t) => t.label.startsWith('◆')), `a tab is marked: ${JSON.stringify(l.tabs)}`);
    const shot = await agentCall(panel, 'window_screenshot');
    assert.equal(shot.mimeType, 'image/png');
    // The window shows the person what agents must not see: agents cannot take it.
    await callError(mcp, 'window_screenshot', {}, 'UNKNOWN_TOOL');
    await callError(mcp, 'window_layout', {}, 'UNKNOWN_TOOL');
    const dir = path.join(REPO_ROOT, 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'window.png'), Buffer.from(shot.data, 'base64'));
  });
});
