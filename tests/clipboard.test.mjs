// What the person copies stays theirs: agents read and paste only what
// agents put on the clipboard (clipboard_write, clipboard_copy, a page's
// copy on an agent's click), never what the person copied in this browser
// or in another program. The person acts through the X server of the
// browser's own display: xclip for another program, xdotool for keys.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { callError, callJson } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

const SECRET = 'nsec1thepersoncopiedthisandnoagentmayreadit';

describe('what the person copies', { timeout: 120_000 }, () => {
  let session;
  let display;
  let owner;
  const call = (tool, args = {}) => callJson(session.mcp, tool, args);
  const refused = (tool, args = {}) => callError(session.mcp, tool, args, 'NOT_ALLOWED');
  const env = () => ({ ...process.env, ...display });
  /** The clipboard's text as any program on the display reads it. */
  const clipboardText = () => execFileSync('xclip', ['-o', '-selection', 'clipboard'], { env: env(), timeout: 5000 }).toString();
  const fieldValue = async () => (await call('get_value', { selector: '#field' })).value;

  /** The primary selection's text (what a middle click pastes). */
  const primaryText = () => execFileSync('xclip', ['-o', '-selection', 'primary'], { env: env(), timeout: 5000 }).toString();

  /** Another program takes a selection with `text`, as a password manager would. */
  async function anotherProgramCopies(text, selection = 'clipboard') {
    owner?.kill();
    owner = spawn('xclip', ['-quiet', '-selection', selection], { env: env(), stdio: ['pipe', 'ignore', 'ignore'] });
    owner.stdin.end(text);
    const read = selection === 'clipboard' ? clipboardText : primaryText;
    await waitFor(() => read() === text, `the other program to own the ${selection} selection`);
  }

  before(async () => {
    session = await startLoggedIn();
    display = session.browser.x11Env();
    assert.ok(display, 'the browser runs on its own display');
  }, { timeout: 90_000 });
  after(async () => {
    owner?.kill();
    await session?.stop();
  });
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => session.browser, fn));

  test('from another program: neither read nor pasted, by any tool or key', async () => {
    await call('open', { url: session.fixtures.url('person-copy.html') });
    await call('clipboard_write', { text: 'written by the agent' });
    assert.deepEqual(await call('clipboard_read'), { text: 'written by the agent' });

    await anotherProgramCopies(SECRET);
    const message = await refused('clipboard_read');
    assert.ok(!message.includes(SECRET), 'the refusal does not carry the text');
    await call('click', { selector: '#field' });
    await refused('clipboard_paste');
    await refused('press', { key: 'Control+v' });
    await refused('press', { key: 'Shift+Insert' });
    await call('keydown', { key: 'Control' });
    try {
      await refused('press', { key: 'v' });
      await refused('keyboard_type', { value: 'av' });
    } finally {
      await call('keyup', { key: 'Control' });
    }
    assert.equal(await fieldValue(), '', 'nothing reached the page');
    assert.equal(clipboardText(), SECRET, 'and the clipboard is still the person\'s');

    // What the agent writes next is its own again.
    await call('clipboard_write', { text: 'the agent again' });
    assert.deepEqual(await call('clipboard_read'), { text: 'the agent again' });
    await call('click', { selector: '#field' });
    await call('press', { key: 'Control+v' });
    assert.equal(await fieldValue(), 'the agent again');
  });

  test('from a page, by the person\'s own keys: not read; a Copy the agent clicks is', async () => {
    await call('open', { url: session.fixtures.url('person-copy.html') });
    await call('clipboard_write', { text: 'written by the agent' });
    await call('eval', { script: "getSelection().selectAllChildren(document.getElementById('words')); true" });
    const xdo = (...args) => execFileSync('xdotool', args, { env: env() });
    const window = execFileSync('xdotool', ['search', '--name', 'Sovereign Browser'], { env: env() }).toString().trim().split('\n')[0];
    xdo('windowfocus', '--sync', window);
    xdo('key', 'ctrl+c');
    await waitFor(() => clipboardText().startsWith('leader monkey parrot'), 'the person\'s copy to reach the clipboard');
    await refused('clipboard_read');
    await call('click', { selector: '#field' });
    await refused('clipboard_paste');
    assert.equal(await fieldValue(), '');

    // The page copies on the agent's click: that text is the agent's to
    // read, once the person's keys are not so near that the copy could be
    // theirs (a few seconds).
    await waitFor(async () => {
      await call('click', { selector: '#copy' });
      const read = await session.mcp.callTool('clipboard_read');
      return !read.isError && read.structuredContent?.text === 'INVITE-7Q2';
    }, 'the copy on the agent\'s click to be the agent\'s', 20_000);
    // And clipboard_copy of a selection the agent made.
    await call('eval', { script: "getSelection().selectAllChildren(document.getElementById('words')); true" });
    await call('clipboard_copy');
    assert.deepEqual(await call('clipboard_read'), { text: 'leader monkey parrot ring guide accident' });
  });

  test('the text the person selected: a middle click does not paste it; one the agent made, it does', async () => {
    await call('open', { url: session.fixtures.url('person-copy.html') });
    await anotherProgramCopies(SECRET, 'primary');
    const box = await call('get_box', { selector: '#field' });
    await call('mouse_move', { x: box.x + 10, y: box.y + 10 });
    const message = await refused('mouse_down', { button: 'middle' });
    assert.match(message, /primary selection/);
    assert.equal(await fieldValue(), '', 'nothing was pasted');

    // A word the agent selects with a double click is the agents' to paste.
    await call('dblclick', { selector: '#code' });
    const word = (await call('eval', { script: 'getSelection().toString()' })).value;
    assert.ok(word && !SECRET.includes(word), `the double click selected a word: ${word}`);
    await waitFor(() => primaryText() === word, 'the agent\'s selection to become the primary one');
    await call('mouse_move', { x: box.x + 10, y: box.y + 10 });
    await call('mouse_down', { button: 'middle' });
    await call('mouse_up', { button: 'middle' });
    assert.equal(await fieldValue(), word);
  });

  // Regression: Shift+F10 or Menu opened the field's context menu, whose
  // Paste put the person's clipboard into the page.
  test('an agent\'s keys open no context menu to paste from', async () => {
    await call('open', { url: session.fixtures.url('person-copy.html') });
    await anotherProgramCopies(SECRET);
    for (const key of ['Shift+F10', 'Menu']) {
      await call('click', { selector: '#field' });
      await call('press', { key });
      // Paste is among the menu's first items: Return on each of them (an
      // open menu takes the keys, so the page never answers for them).
      for (let i = 0; i < 6; i++) {
        await session.mcp.callTool('press', { key: 'Down' });
        await session.mcp.callTool('press', { key: 'Return' });
      }
      // And the menu never took them: each reached the page.
      await call('press', { key: 'End' });
      assert.ok(!(await fieldValue()).includes(SECRET), `${key}: the person's clipboard did not reach the page`);
      await call('fill', { selector: '#field', value: '' });
    }
  });

  // Regression: only the keyval was checked, while GTK's bindings match the
  // key: on a second layout, Control with the letter on the V key pasted.
  test('on a second keyboard layout, Control with the letter on the V key is refused', async () => {
    execFileSync('setxkbmap', ['-layout', 'us,ru'], { env: env() });
    try {
      await call('open', { url: session.fixtures.url('person-copy.html') });
      await anotherProgramCopies(SECRET);
      await call('click', { selector: '#field' });
      await refused('press', { key: 'Control+Cyrillic_em' });
      assert.equal(await fieldValue(), '', 'nothing was pasted');
    } finally {
      execFileSync('setxkbmap', ['-layout', 'us'], { env: env() });
    }
  });

  // Regression: every copy this program made between the start and the end
  // of an agent's input counted as the agent's, and a busy page stretched
  // that to seconds: the person's copy in the address bar meanwhile was
  // then read by the agent.
  test('a copy the person makes while an agent\'s click waits on a busy page stays theirs', async () => {
    await call('open', { url: session.fixtures.url('person-copy.html') });
    await call('clipboard_write', { text: 'written by the agent' });
    const url = (await call('get_url')).url;
    const click = call('click', { selector: '#busy' });
    await waitFor(() => session.fixtures.held('busy-click'), 'the page to be busy with the click');
    const window = execFileSync('xdotool', ['search', '--name', 'Person copy'], { env: env() }).toString().trim().split('\n')[0];
    const xdo = (...args) => execFileSync('xdotool', args, { env: env() });
    xdo('windowfocus', '--sync', window);
    xdo('key', 'ctrl+l', 'ctrl+c', 'Escape');
    await waitFor(() => clipboardText() === url, 'the person\'s copy of the address to reach the clipboard');
    session.fixtures.release('busy-click');
    await click;
    const message = await refused('clipboard_read');
    assert.ok(!message.includes(url), 'the refusal does not carry the text');
  });
});
