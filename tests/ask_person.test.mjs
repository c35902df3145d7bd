// ask_person: an agent hands its tab to the person. The window shows the
// request over the tab (answered here with real X input, through the X
// server, on the browser's own Xvfb display), the person's own panel
// connection answers it too; meanwhile agents' tools on that tab answer
// PAUSED. Long waits carry progress notifications in both protocol eras,
// and a client that goes away ends the wait.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import {
  callError, callJson, callText, connectMcp, jsonResult, modernHeaders, modernMeta, parseSse, rpc,
} from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('ask_person', { timeout: 300_000 }, () => {
  let session;
  let browser;
  let fixtures;
  let mcp; // the agent that asks
  let other; // another agent
  let panel; // the person's own connection
  let display;
  let windowId;
  const test = (name, fn, timeout = 60_000) => it(name, { timeout }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const xdo = (...args) => execFileSync('xdotool', args, { env: { ...process.env, ...display } }).toString().trim();
  const layout = () => agentCall(panel, 'window_layout');
  const click = (rect) => {
    xdo('mousemove', '--window', windowId, String(rect.x + Math.floor(rect.width / 2)), String(rect.y + Math.floor(rect.height / 2)));
    xdo('click', '1');
  };
  /** The requests waiting, as the person's panel sees them. */
  const waiting = async () => (await agentCall(panel, 'window_layout')).ask_bar;
  /** A tab of its own for the asking agent, with a page in it. */
  async function ownTab(page = 'form.html') {
    await call('tab_new', { url: fixtures.url(page) });
    return (await call('tab_list')).tabs.find((t) => t.current);
  }

  before(async () => {
    session = await startLoggedIn();
    ({ browser, fixtures, mcp } = session);
    other = await connectMcp(browser, { name: 'other-agent' });
    panel = await connectPanel(browser);
    display = browser.x11Env();
    windowId = xdo('search', '--name', 'Sovereign Browser').split('\n')[0];
    xdo('windowfocus', '--sync', windowId);
  }, { timeout: 90_000 });

  after(async () => {
    await other?.close().catch(() => {});
    await panel?.close();
    await session?.stop();
  });

  test('the person answers Done in the window, with a note typed there; the tab was theirs meanwhile', async () => {
    const tab = await ownTab();
    const asked = call('ask_person', { message: 'Please solve the CAPTCHA', timeout: 60_000 });
    await waitFor(async () => (await waiting())?.includes('Please solve the CAPTCHA'), 'the bar over the tab');
    const shown = await layout();
    assert.match(shown.ask_bar, /^An agent calling itself “sovereign-tests” asks you: Please solve the CAPTCHA$/);
    assert.ok(shown.tabs.find((t) => t.id === tab.id).label.startsWith('✋'), 'the tab strip marks the tab');
    assert.equal(shown.tabs.find((t) => t.front).id, tab.id, 'the tab is in front');

    // Other agents: PAUSED on that tab, with the message; a second request too.
    const refused = await callError(other, 'get_title', { tab: tab.id }, 'PAUSED');
    assert.match(refused, /Please solve the CAPTCHA/);
    assert.match(await callError(other, 'ask_person', { message: 'me too', tab: tab.id }, 'PAUSED'), /Please solve the CAPTCHA/);
    assert.match(await callError(other, 'tab_close', { index: tab.index }, 'PAUSED'), /CAPTCHA/);
    assert.match(await callError(other, 'click', { selector: 'button', tab: tab.id }, 'PAUSED'), /CAPTCHA/);
    // No agent's pointer reaches the bar: input on the tab is refused, and the request still waits.
    await callError(other, 'mouse_move', { x: 10, y: 1, tab: tab.id }, 'PAUSED');
    await callError(other, 'mouse_down', { tab: tab.id }, 'PAUSED');
    assert.match(await waiting(), /Please solve the CAPTCHA/);
    // Other tabs still work, without taking the front from the person.
    const opened = await callJson(other, 'tab_new', { url: fixtures.url('links.html') });
    assert.equal(opened.title, 'Links');
    assert.equal((await layout()).tabs.find((t) => t.front).id, tab.id, 'the person keeps the tab in front');
    assert.match(await callError(other, 'click', { selector: 'a' }, 'PAUSED'), /input on another tab/);
    await callJson(other, 'close');

    // The person types in the page (it is theirs), and a note in the bar.
    click((await layout()).ask_note);
    xdo('type', '--delay', '10', 'code entered');
    click((await layout()).ask_done);
    const result = await asked;
    assert.equal(result.answer, 'done');
    assert.equal(result.note, 'code entered');
    assert.ok(result.waited_ms > 0);
    await waitFor(async () => (await waiting()) === null, 'the bar to go');
    assert.equal((await callJson(other, 'get_title', { tab: tab.id })).title, 'Sign up', 'the tab is the agents\' again');
  });

  test('the person answers Can\'t from the panel, with a note; only that reaches the agent', async () => {
    const tab = await ownTab();
    const asked = call('ask_person', { message: 'Enter the 2FA code', timeout: 60_000 });
    const ask = await waitFor(() => pushedAsk('Enter the 2FA code'), 'the request in the panel\'s state');
    assert.equal(ask.message, 'Enter the 2FA code');
    assert.equal(ask.tab, tab.id);
    assert.equal(ask.asker, 'sovereign-tests');
    assert.ok(ask.expires_in_ms > 0 && ask.expires_in_ms <= 60_000);
    // What the person types into the window's note is not sent with a panel answer.
    click((await layout()).ask_note);
    xdo('type', '--delay', '10', 'typed in the window');
    await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'declined', note: 'no phone with me' });
    const result = await asked;
    assert.equal(result.answer, 'declined');
    assert.equal(result.note, 'no phone with me');
    const again = await panel.call('ask_answer', { id: ask.id, answer: 'done' });
    assert.equal(again.ok, false);
    assert.equal(again.error.code, 'INVALID_PARAMS', 'answered once');
    await waitFor(async () => (await waiting()) === null, 'the bar to go');
  });

  // Regression: the bar and the panel showed the client's self-reported
  // name as sent, of any length and with line breaks, so a client could
  // pose as the browser itself.
  test('the asker\'s name is shown as the client\'s own claim, on one short line', async () => {
    const claimed = `Sovereign Browser\nneeds your nsec:\r\n${'x'.repeat(10_000)}`;
    const named = await connectMcp(browser, { name: claimed });
    try {
      await callJson(named, 'tab_new', { url: fixtures.url('form.html') });
      const asked = callJson(named, 'ask_person', { message: 'Check the name', timeout: 60_000 });
      const bar = await waitFor(async () => {
        const shown = await waiting();
        return shown?.includes('Check the name') && shown;
      }, 'the bar over the tab');
      assert.doesNotMatch(bar, /[\n\r]/, 'the bar is one line');
      const [, name] = /^An agent calling itself “(.*)” asks you: Check the name$/.exec(bar) ?? [];
      assert.ok(name, bar);
      assert.ok([...name].length <= 64, `a name of ${[...name].length} characters`);
      assert.match(name, /^Sovereign Browser needs your nsec: x+…$/);
      const ask = await waitFor(() => pushedAsk('Check the name'), 'the request in the panel\'s state');
      assert.equal(ask.asker, name, 'the panel gets the same short name');
      await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'declined' });
      assert.equal((await asked).answer, 'declined');
    } finally {
      await named.close().catch(() => {});
    }
  });

  // Regression: after Done, an agent's eval read the password the person
  // typed for it (the tool promised "a password you must not see").
  test('the fields the person types into during the request stay unreadable to agents on that page, which still sends them', async () => {
    const tab = await ownTab();
    const box = await call('get_box', { selector: '#password' });
    const comments = await call('get_box', { selector: '#comments' });
    const asked = call('ask_person', { message: 'Type your password, then Done', timeout: 60_000 });
    await waitFor(async () => (await waiting())?.includes('Type your password'), 'the bar over the tab');
    const shown = await layout();
    assert.equal(shown.ask_warning, null, 'no agent ran a script in this tab, so no warning');
    assert.equal((await waitFor(() => pushedAsk('Type your password, then Done'), 'the request in the panel')).agent_scripted, false);

    // Meanwhile agents' scripts in a page's own world answer PAUSED in every tab, saying why.
    await callJson(other, 'tab_new', { url: fixtures.url('links.html') });
    for (const [tool, args] of [['eval', { script: 'document.title' }], ['wait_for_fn', { script: 'true', timeout: 1000 }]]) {
      const why = await callError(other, tool, args, 'PAUSED');
      assert.match(why, /scripts in a page's own world \(eval, wait_for_fn\) answer PAUSED in every tab/, `${tool}: ${why}`);
      assert.match(why, /Type your password/);
    }
    await callJson(other, 'close');

    // The person clicks the fields and types, through the X server.
    const pages = shown.pages;
    const typeInto = async (field, selector, text) => {
      click({ x: pages.x + field.x, y: pages.y + field.y, width: field.width, height: field.height });
      xdo('type', '--delay', '30', text);
      // The page has it, and it is the person's: even the panel's reads are refused.
      await waitFor(async () => {
        const read = await panel.call('get_value', { selector, tab: tab.id });
        return read.ok === false && read.error.code === 'NOT_ALLOWED';
      }, `the page to take the person's typing into ${selector} as theirs`);
    };
    await typeInto(box, '#password', 'hunter2');
    await typeInto(comments, '#comments', 'card 4111');
    click((await layout()).ask_done);
    assert.equal((await asked).answer, 'done');

    // Neither this agent nor another reads it: scripts in the page, the snapshot, the element tools.
    for (const agent of [mcp, other]) {
      const why = await callError(agent, 'eval', { script: "document.getElementById('password').value", tab: tab.id }, 'NOT_ALLOWED');
      assert.match(why, /the person typed into tab \d+'s page while an agent's request \(ask_person\) waited/);
    }
    await callError(mcp, 'wait_for_fn', { script: "document.getElementById('password').value === 'hunter2'", timeout: 1000 }, 'NOT_ALLOWED');
    const snapshot = await callText(mcp, 'snapshot');
    assert.ok(!snapshot.includes('hunter2') && !snapshot.includes('4111'), snapshot);
    assert.match(snapshot, /textbox "Password".*: \(typed by the person; hidden from agents\)/);
    assert.match(snapshot, /textbox "Comments".*: \(typed by the person; hidden from agents\)/);
    for (const [tool, args] of [
      ['get_value', { selector: '#password' }],
      ['get_text', { selector: '#password' }],
      ['get_attr', { selector: '#password', attr: 'value' }],
      ['get_html', { selector: '#signup' }],
      ['fill', { selector: '#password', value: 'changed' }],
      ['get_text', { selector: '#comments' }],
      ['type', { selector: '#comments', value: ' more' }],
    ]) {
      const why = await callError(mcp, tool, args, 'NOT_ALLOWED');
      assert.match(why, /the person typed into this field while an agent's request \(ask_person\) waited/, `${tool}: ${why}`);
    }
    // Nor may a route answer a script the page loads later, even with the person's yes to routes.
    await agentCall(panel, 'network_routes_allow', { allowed: true });
    try {
      const why = await callError(mcp, 'network_route', { url: '**/later.js', action: 'abort' }, 'NOT_ALLOWED');
      assert.match(why, /the person typed into tab \d+'s page while an agent's request \(ask_person\) waited: until that page is left, no new route is added in its context/);
    } finally {
      await agentCall(panel, 'network_routes_allow', { allowed: false });
    }
    const found = await call('find_label', { label: 'Password' });
    assert.equal(found.name, 'Password');
    // Nor does its text leave the field by the clipboard.
    await call('clipboard_write', { text: 'the agent\'s own' });
    await call('focus', { selector: '#comments' });
    await call('press', { key: 'Control+a' });
    await call('clipboard_copy');
    assert.deepEqual(await call('clipboard_read'), { text: 'the agent\'s own' }, 'the copy took nothing');
    // The fields the person did not type into are the agent's as before (a copy of one works).
    await call('fill', { selector: '#name', value: 'Ada' });
    assert.equal((await call('get_value', { selector: '#name' })).value, 'Ada');
    await call('press', { key: 'Control+a' });
    // A copy within two seconds of the person's own keys and clicks could be
    // theirs, so it is not the agent's until their Done is that far behind.
    await waitFor(async () => {
      await call('clipboard_copy');
      const read = await mcp.callTool('clipboard_read');
      return !read.isError && read.structuredContent?.text === 'Ada';
    }, 'the copy of a field the person did not type into to be the agent\'s', 20_000);

    // The agent submits the form: the site receives what the person typed.
    await call('click', { selector: '#create' });
    await waitFor(async () => (await call('get_title')).title === 'Submitted', 'the form to be sent');
    assert.deepEqual(fixtures.submitted().at(-1), {
      name: 'Ada', email: '', password: 'hunter2', country: 'France', comments: 'card 4111',
    });
    // A new page: scripts run in it again.
    assert.equal((await call('eval', { script: 'document.title' })).value, 'Submitted');
  });

  test('what a page sends after the person typed into it (during the request) is withheld from network_request, for good', async () => {
    const tab = await ownTab('person-post.html');
    const sent = async (all = false) => {
      const listed = await waitFor(async () => {
        const seen = await call('network_requests', { url: 'typed=1', all, tab: tab.id });
        const last = seen.requests.at(-1);
        return last && !last.pending && seen;
      }, 'the page\'s post');
      return call('network_request', { id: listed.requests.at(-1).id, tab: tab.id });
    };
    await call('fill', { selector: '#note', value: 'the agent typed this' });
    await call('click', { selector: '#send' });
    assert.equal((await sent()).request_body, 'the agent typed this|', 'before the person typed, the body is shown');
    await call('fill', { selector: '#note', value: '' });
    await call('network_requests', { mark: true });

    const box = await call('get_box', { selector: '#note' });
    const asked = call('ask_person', { message: 'Type your code for the post, then Done', timeout: 60_000 });
    await waitFor(async () => (await waiting())?.includes('Type your code for the post'), 'the bar over the tab');
    const pages = (await layout()).pages;
    click({ x: pages.x + box.x, y: pages.y + box.y, width: box.width, height: box.height });
    xdo('type', '--delay', '30', 'code 7731');
    await waitFor(async () => {
      const read = await panel.call('get_value', { selector: '#note', tab: tab.id });
      return read.ok === false && read.error.code === 'NOT_ALLOWED';
    }, 'the page to take the person\'s typing as theirs');
    click((await layout()).ask_done);
    assert.equal((await asked).answer, 'done');

    await call('click', { selector: '#send' });
    const after = await sent();
    assert.equal(after.request_body, null);
    assert.match(after.request_body_note, /^withheld, for good: .*ask_person/);
    assert.equal(after.withheld, true, 'the request says so in the listing too');
    assert.ok(!JSON.stringify(after).includes('7731'), JSON.stringify(after));
    // Leaving the page does not hand it over.
    await call('open', { url: fixtures.url('links.html') });
    const later = await sent(true);
    assert.equal(later.id, after.id);
    assert.equal(later.request_body, null);
    assert.ok(!JSON.stringify(later).includes('7731'), JSON.stringify(later));
  });

  test('a field the person types into inside a same-origin frame stays theirs for the page\'s reads and the frame\'s', async () => {
    const tab = await ownTab('frames.html');
    const before = await callText(mcp, 'snapshot');
    const ref = /(e\d+) textbox "Note"/.exec(before)?.[1];
    assert.ok(ref, before);
    const box = await call('get_box', { ref });
    const asked = call('ask_person', { message: 'Write your note in the frame', timeout: 60_000 });
    await waitFor(async () => (await waiting())?.includes('Write your note'), 'the bar over the tab');
    const { pages } = await layout();
    click({ x: pages.x + box.x, y: pages.y + box.y, width: box.width, height: box.height });
    xdo('type', '--delay', '30', 'frame secret');
    await waitFor(async () => {
      const read = await panel.call('get_value', { ref, tab: tab.id });
      return read.ok === false && read.error.code === 'NOT_ALLOWED';
    }, 'the frame to take the person\'s typing as theirs');
    click((await layout()).ask_done);
    assert.equal((await asked).answer, 'done');

    // The top document's agent reads the frame's field for the snapshot and by ref: refused.
    const after = await callText(mcp, 'snapshot');
    assert.ok(!after.includes('frame secret'), after);
    assert.match(after, /textbox "Note".*: \(typed by the person; hidden from agents\)/);
    await callError(mcp, 'get_value', { ref }, 'NOT_ALLOWED');
    // And inside the frame, by its own agent and by a script in it.
    await call('frame_switch', { selector: 'iframe' });
    try {
      await callError(mcp, 'get_text', { selector: '#note' }, 'NOT_ALLOWED');
      await callError(mcp, 'eval', { script: "document.getElementById('note').value" }, 'NOT_ALLOWED');
    } finally {
      await call('frame_main');
    }
  });

  test('over a tab an agent ran its own script in, the bar and the panel say that what the person types may reach it', async () => {
    await ownTab();
    await call('eval', { script: "document.addEventListener('input', () => {}); 'listening'" });
    const asked = call('ask_person', { message: 'Sign in, please', timeout: 60_000 });
    await waitFor(async () => (await waiting())?.includes('Sign in, please'), 'the bar over the tab');
    assert.equal((await layout()).ask_warning, '⚠ An agent ran its own script in this tab or routed its requests: what you type here may reach it.');
    const ask = await waitFor(() => pushedAsk('Sign in, please'), 'the request in the panel\'s state');
    assert.equal(ask.agent_scripted, true);
    await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'declined' });
    assert.equal((await asked).answer, 'declined');
  });

  test('a request nobody answers times out, and the tab is free again', async () => {
    const tab = await ownTab();
    const result = await call('ask_person', { message: 'Anyone?', timeout: 1500 });
    assert.equal(result.answer, 'timed_out');
    assert.ok(result.waited_ms >= 1500);
    assert.equal((await callJson(other, 'get_title', { tab: tab.id })).title, 'Sign up');
    await callError(mcp, 'ask_person', { message: 'x', timeout: 10 }, 'INVALID_PARAMS');
  });

  test('a 2025-11-25 client gets progress while it waits, then the answer', async () => {
    await ownTab();
    const progress = [];
    const asked = mcp.callTool('ask_person', { message: 'Log in to your bank', timeout: 120_000 }, {
      timeout: 30_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => progress.push(p),
    });
    await waitFor(() => progress.length > 0, 'a progress notification', 30_000);
    assert.match(progress[0].message, /waiting for the person: Log in to your bank/);
    assert.ok(progress[0].progress >= 5);
    await agentCall(panel, 'ask_answer', { id: await askId('Log in to your bank'), answer: 'done' });
    assert.equal(jsonResult(await asked).answer, 'done');
  }, 90_000);

  test('a 2026-07-28 client gets progress on the stream, and closing it ends the wait', async () => {
    const tab = await ownTab();
    const body = rpc('tools/call', {
      name: 'ask_person',
      arguments: { message: 'Approve the payment', timeout: 120_000, tab: tab.id },
      _meta: modernMeta({ progressToken: 'pay-1' }),
    });
    const abort = new AbortController();
    const response = await fetch(browser.mcpUrl, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        Authorization: `Bearer ${browser.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...modernHeaders(body),
      },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type'), /text\/event-stream/);
    // Read the stream until a progress notification arrives.
    const reader = response.body.getReader();
    let text = '';
    while (!parseSse(text).some((e) => e.data.includes('notifications/progress'))) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the stream ended early: ${text}`);
      text += Buffer.from(value).toString('utf8');
    }
    const note = JSON.parse(parseSse(text).find((e) => e.data.includes('notifications/progress')).data);
    assert.equal(note.params.progressToken, 'pay-1');
    assert.match(note.params.message, /Approve the payment/);
    assert.match(await callError(other, 'get_url', { tab: tab.id }, 'PAUSED'), /Approve the payment/);

    // The client goes away: the request ends, and the tab is free again.
    abort.abort();
    await waitFor(async () => (await waiting()) === null, 'the bar to go once the client left', 30_000);
    assert.equal((await callJson(other, 'get_title', { tab: tab.id })).title, 'Sign up');
  }, 90_000);

  /** The request with `message`, in the newest state pushed to the panel. */
  let lastState = null;
  function pushedAsk(message) {
    while (panel.unmatched.length) {
      const pushed = panel.unmatched.shift();
      if (pushed.event === 'state') lastState = pushed.data;
    }
    return lastState?.asks?.find((a) => a.message === message);
  }
  async function askId(message) {
    return (await waitFor(() => pushedAsk(message), `the request "${message}" in the panel's state`)).id;
  }
});
