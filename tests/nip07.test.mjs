// window.nostr (NIP-07) for web pages: a fixture app on 127.0.0.1 asks
// through the real provider, a person answers in the control panel (its
// WebSocket, and in one test its page in Chromium), and the signatures are
// checked with an independent library (nostr-tools). The app's calls are
// its own (tests/support/site_calls.mjs); an agent's eval is the agent's.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import * as nip44 from 'nostr-tools/nip44';
import * as nip19 from 'nostr-tools/nip19';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { connectPanel } from './support/agent.mjs';
import { startBunker } from './support/bunker.mjs';
import { LISTED_SIZE, TEST_NSEC, TEST_NPUB, TEST_PUBKEY, callJson, callText, connectMcp } from './support/mcp.mjs';
import { siteCalls } from './support/site_calls.mjs';
import { waitFor } from './support/wait.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** An agent's page script that settles to {ok, value} or {ok: false, error}. */
const settle = (expression) => `(${expression}).then((value) => ({ ok: true, value }), (e) => ({ ok: false, error: e.message }))`;

const note = (content, created_at = 1_760_000_000) => ({ kind: 1, content, tags: [['t', 'sovereign']], created_at });

describe('window.nostr (NIP-07)', { timeout: 400_000 }, () => {
  let fixtures; let other; let third; let browser; let mcp; let panel; let site;
  const appA = () => fixtures.url('/nostr-app.html');
  const originA = () => fixtures.origin;
  const originB = () => other.origin;
  // For agents' own scripts: an origin of their own, so that their prompts
  // count against its rate (20 a minute), not the other tests' origins'.
  const appC = () => third.url('/nostr-app.html');
  const originC = () => third.origin;

  /** The site's own script, run by a new page of the app in the current tab: {ok, value} or {ok: false, error}. */
  const siteCall = async (expression, page) => {
    const { at, ...result } = await site.call(expression, page);
    return result;
  };
  /** An agent's script (eval) in the current tab; its promise is awaited. It marks the tab. */
  const inPage = async (script) => (await callJson(mcp, 'eval', { script })).value;
  const panelCall = async (tool, params = {}) => {
    const reply = await panel.call(tool, params);
    assert.equal(reply.ok, true, `${tool}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  const state = () => panelCall('nostr_permissions');
  /** The waiting prompt from `origin` (and the method, when given). */
  const promptFrom = (origin, method) => waitFor(async () => (await state()).prompts
    .find((p) => p.origin === origin && (!method || p.method === method)), `a prompt from ${origin}`);
  const answer = (prompt, allow, remember = false) => panelCall('nostr_prompt_answer', { id: prompt.id, allow, remember });
  /** The waiting prompt whose event has `content`. */
  const promptWith = (content) => waitFor(async () => (await state()).prompts.find((p) => p.content === content),
    `a prompt to sign "${content}"`);
  /** A page's call to sign a note of `content`. */
  const sign = (content) => `window.nostr.signEvent(${JSON.stringify(note(content))})`;
  const logged = (fn) => withBrowserLog(() => browser, fn);

  before(async () => {
    fixtures = await startFixtureServer();
    other = await startFixtureServer();
    third = await startFixtureServer();
    browser = await startBrowser({ args: ['--nostr-prompt-timeout', '30'] });
    mcp = await connectMcp(browser);
    panel = await connectPanel(browser);
    site = siteCalls(mcp, fixtures.url('/nostr-app.html'));
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
  }, { timeout: 90_000 });

  after(async () => {
    await panel?.close();
    await mcp?.close().catch(() => {});
    await browser?.stop();
    await fixtures?.close();
    await other?.close();
    await third?.close();
  });

  test('every page has a provider a page cannot replace, and no way to the browser itself', logged(async () => {
    const { value: seen } = await siteCall(`(() => {
      const d = Object.getOwnPropertyDescriptor(window, 'nostr');
      const before = window.nostr;
      try { window.nostr = { getPublicKey: async () => 'forged' }; } catch (_) {}
      try { delete window.nostr; } catch (_) {}
      return {
        methods: Object.keys(window.nostr).sort(),
        nip44: Object.keys(window.nostr.nip44).sort(),
        writable: d.writable, configurable: d.configurable,
        same: window.nostr === before, frozen: Object.isFrozen(window.nostr),
        handler: typeof (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.sovereignNostr),
      };
    })()`);
    assert.deepEqual(seen.methods, ['getPublicKey', 'getRelays', 'nip04', 'nip44', 'signEvent']);
    assert.deepEqual(seen.nip44, ['decrypt', 'encrypt']);
    assert.equal(seen.writable, false);
    assert.equal(seen.configurable, false);
    assert.equal(seen.same, true, 'the page replaced window.nostr');
    assert.equal(seen.frozen, true);
    assert.equal(seen.handler, 'undefined', 'the browser\'s message handler is visible to the page');
    assert.deepEqual(await siteCall('window.nostr.getRelays()'), { ok: true, value: {} }, 'getRelays asks nothing and reveals nothing');
    assert.deepEqual((await state()).prompts, [], 'getRelays prompted');
  }));

  test('signing: the prompt shows origin, kind and content; "allow once" signs once, verified by nostr-tools', logged(async () => {
    const signing = siteCall(`window.nostr.signEvent(${JSON.stringify(note('hello from a web page'))})`);
    const prompt = await promptFrom(originA(), 'signEvent');
    assert.equal(prompt.kind, 1);
    assert.equal(prompt.content, 'hello from a web page');
    assert.equal(prompt.capability, 'sign:1');
    assert.match(prompt.asks_to, /sign events of kind 1/);
    assert.deepEqual(prompt.tags, [['t', 'sovereign']]);
    assert.equal(prompt.created_at, 1_760_000_000, 'the prompt shows the time the event will carry');
    assert.equal(prompt.in_frame_of, null);
    assert.equal(prompt.agent_scripted, false, 'the site\'s own call is not marked as an agent\'s');
    const layout = await panelCall('window_layout');
    assert.match(layout.nostr_prompts ?? '', new RegExp(`${new URL(originA()).host} asks to sign events of kind 1`),
      'the browser window notes the waiting request');
    await answer(prompt, true);
    const signed = await signing;
    assert.equal(signed.ok, true, signed.error);
    const event = signed.value;
    assert.equal(verifyEvent(event), true, `nostr-tools rejects the signature: ${JSON.stringify(event)}`);
    assert.equal(event.pubkey, TEST_PUBKEY);
    assert.equal(event.content, 'hello from a web page');
    assert.equal(event.created_at, 1_760_000_000);
    assert.deepEqual(event.tags, [['t', 'sovereign']]);
    await waitFor(async () => (await panelCall('window_layout')).nostr_prompts === null, 'the window note to go');

    // Once means once: the next signature asks again, and a denial rejects.
    const again = siteCall(`window.nostr.signEvent(${JSON.stringify(note('second'))})`);
    await answer(await promptFrom(originA(), 'signEvent'), false);
    const denied = await again;
    assert.equal(denied.ok, false);
    assert.match(denied.error, /denied/);
    assert.deepEqual((await state()).permissions, [], '"just this time" answers are not kept');
  }));

  test('"always" is kept per origin and capability, listed, and revocable', logged(async () => {
    const first = siteCall('window.nostr.getPublicKey()');
    await answer(await promptFrom(originA(), 'getPublicKey'), true, true);
    assert.deepEqual(await first, { ok: true, value: TEST_PUBKEY });
    assert.deepEqual(await siteCall('window.nostr.getPublicKey()'), { ok: true, value: TEST_PUBKEY },
      'an allowed origin is not asked again');

    const dm = siteCall(`window.nostr.signEvent({ kind: 4, content: 'x', tags: [] })`);
    await answer(await promptFrom(originA(), 'signEvent'), false, true);
    assert.match((await dm).error, /denied/);
    const deniedAgain = await siteCall(`window.nostr.signEvent({ kind: 4, content: 'y', tags: [] })`);
    assert.match(deniedAgain.error, /denied/, 'a denied capability is refused without asking');

    // Another kind is another capability: it asks.
    const kind7 = siteCall(`window.nostr.signEvent({ kind: 7, content: '+', tags: [] })`);
    await answer(await promptFrom(originA(), 'signEvent'), false);
    await kind7;

    const kept = (await state()).permissions.map((d) => `${d.origin} ${d.capability} ${d.allow}`).sort();
    assert.deepEqual(kept, [`${originA()} public_key true`, `${originA()} sign:4 false`]);

    assert.equal((await panelCall('nostr_permission_revoke', { origin: originA(), capability: 'public_key' })).revoked, 1);
    const asksAgain = siteCall('window.nostr.getPublicKey()');
    await answer(await promptFrom(originA(), 'getPublicKey'), true, true);
    assert.equal((await asksAgain).value, TEST_PUBKEY);
    assert.equal((await panelCall('nostr_permission_revoke', { origin: originA() })).revoked, 2, 'revoking an origin forgets all of it');
    assert.deepEqual((await state()).permissions, []);
  }));

  test('a decision is its identity\'s: after a switch to another identity the site is asked again', logged(async () => {
    const first = siteCall('window.nostr.getPublicKey()');
    await answer(await promptFrom(originA(), 'getPublicKey'), true, true);
    assert.equal((await first).value, TEST_PUBKEY);
    const [kept] = (await state()).permissions;
    assert.deepEqual([kept.pubkey, kept.npub], [TEST_PUBKEY, TEST_NPUB], 'kept for the identity asked');

    const secret = generateSecretKey();
    await callJson(mcp, 'login', { method: 'local', nsec: nip19.nsecEncode(secret) });
    try {
      const asked = siteCall('window.nostr.getPublicKey()');
      const prompt = await promptFrom(originA(), 'getPublicKey');
      assert.equal(prompt.pubkey, getPublicKey(secret), 'the prompt names the identity asked');
      await answer(prompt, false);
      assert.match((await asked).error, /denied/, 'the first identity\'s "always" did not answer for this one');
    } finally {
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    }
    assert.deepEqual(await siteCall('window.nostr.getPublicKey()'), { ok: true, value: TEST_PUBKEY },
      'back to the first identity: its decision stands');
    assert.equal((await panelCall('nostr_permission_revoke', { origin: originA(), pubkey: TEST_PUBKEY })).revoked, 1);
  }));

  test('two origins keep separate permissions, and a cross-origin frame is asked with its own origin', logged(async () => {
    const a = siteCall('window.nostr.getPublicKey()');
    await answer(await promptFrom(originA(), 'getPublicKey'), true, true);
    assert.equal((await a).value, TEST_PUBKEY);

    // The other origin, on its own page, is asked although the first is allowed.
    const b = siteCall('window.nostr.getPublicKey()', other.url('/nostr-app.html'));
    await answer(await promptFrom(originB(), 'getPublicKey'), false);
    assert.match((await b).error, /denied/);

    // A frame of the other origin inside the allowed page asks for itself.
    await callJson(mcp, 'open', { url: `${appA()}?frame=${encodeURIComponent(other.url('/nostr-frame.html'))}` });
    const framed = await promptFrom(originB(), 'getPublicKey');
    assert.equal(framed.in_frame_of, originA(), 'the prompt says which page the frame is in');
    await answer(framed, true);
    const report = await waitFor(async () => JSON.parse(await callText(mcp, 'get_text', { selector: '#frame-reports' }))[0],
      'the frame\'s report');
    assert.deepEqual(report, { from: originB(), ok: true, pubkey: TEST_PUBKEY });
    const kept = (await state()).permissions.map((d) => `${d.origin} ${d.capability}`);
    assert.deepEqual(kept, [`${originA()} public_key`], 'the frame\'s answer was once, for its own origin');
    await panelCall('nostr_permission_revoke', { origin: originA() });
  }));

  test('a forged request names the page\'s real origin, never the one it claims', logged(async () => {
    const forged = siteCall(`new Promise((resolve) => {
      window.addEventListener('__sovereign_nostr_reply', (e) => resolve(JSON.parse(e.detail)));
      window.dispatchEvent(new CustomEvent('__sovereign_nostr_request', { detail: JSON.stringify({
        id: 999, method: 'getPublicKey', params: {}, origin: 'https://trusted.example', top_origin: 'https://trusted.example',
      }) }));
    })`);
    const prompt = await promptFrom(originA(), 'getPublicKey');
    assert.equal(prompt.in_frame_of, null);
    assert.ok(!(await state()).prompts.some((p) => p.origin.includes('trusted.example')));
    await answer(prompt, false);
    assert.equal((await forged).value.reply.ok, false);
  }));

  test('a prompt goes when the page that asked goes (a new page, or its tab closed)', logged(async () => {
    await site.start(`window.nostr.signEvent(${JSON.stringify(note('left behind'))})`);
    await promptFrom(originA(), 'signEvent');
    await callJson(mcp, 'open', { url: other.url('/nostr-app.html') });
    await waitFor(async () => (await state()).prompts.length === 0, 'the prompt of the page left to go', 5000);

    await callJson(mcp, 'tab_new', { url: appA() });
    await site.start('window.nostr.getPublicKey()');
    await promptFrom(originA(), 'getPublicKey');
    await callJson(mcp, 'close');
    await waitFor(async () => (await state()).prompts.length === 0, 'the prompt of the closed tab to go', 5000);
  }));

  test('encryption: nip44 and nip04 round trips; the nip44 text opens with nostr-tools', logged(async () => {
    const peer = TEST_PUBKEY;
    const encrypting = siteCall(`window.nostr.nip44.encrypt('${peer}', 'meet at noon')`);
    const asked = await promptFrom(originA(), 'nip44.encrypt');
    assert.deepEqual([asked.peer, asked.plaintext_chars], [peer, 12], 'the prompt names the peer and the length');
    await answer(asked, true, true);
    const sealed = await encrypting;
    assert.equal(sealed.ok, true, sealed.error);
    const secret = nip19.decode(TEST_NSEC).data;
    const key = nip44.v2.utils.getConversationKey(secret, peer);
    assert.equal(nip44.v2.decrypt(sealed.value, key), 'meet at noon');

    const opening = siteCall(`window.nostr.nip44.decrypt('${peer}', ${JSON.stringify(nip44.v2.encrypt('from nostr-tools', key))})`);
    await answer(await promptFrom(originA(), 'nip44.decrypt'), true, true);
    assert.deepEqual(await opening, { ok: true, value: 'from nostr-tools' });

    const old = await siteCall(`window.nostr.nip04.encrypt('${peer}', 'legacy').then((c) => window.nostr.nip04.decrypt('${peer}', c))`);
    assert.deepEqual(old, { ok: true, value: 'legacy' }, 'encrypt and decrypt were allowed always, for both schemes');
    const bad = await siteCall(`window.nostr.nip44.encrypt('not-a-key', 'x')`);
    assert.match(bad.error, /pubkey/);
    await panelCall('nostr_permission_revoke', { origin: originA() });
  }));

  test('assistants answer only when a person allows it; their tool is listed only then', logged(async () => {
    const listed = async () => (await mcp.listTools()).map((t) => t.name);
    assert.ok(!(await listed()).includes('nostr_prompts'));
    assert.equal((await listed()).length, LISTED_SIZE, 'the everyday catalogue');
    const refused = await mcp.callTool('nostr_prompts', {});
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error.code, 'UNKNOWN_TOOL');
    const panelOnly = await mcp.callTool('nostr_prompt_answer', { id: 'x', allow: true });
    assert.equal(panelOnly.structuredContent.error.code, 'UNKNOWN_TOOL', 'an agent called the panel\'s own answer');
    const toggling = await mcp.callTool('nostr_assistant_answers', { allowed: true });
    assert.equal(toggling.structuredContent.error.code, 'UNKNOWN_TOOL', 'an agent allowed itself');

    let changed = 0;
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed += 1; });
    await panelCall('nostr_assistant_answers', { allowed: true });
    await waitFor(() => changed > 0, 'notifications/tools/list_changed');
    assert.ok((await listed()).includes('nostr_prompts'));

    const signing = siteCall(`window.nostr.signEvent(${JSON.stringify(note('approved by an assistant'))})`);
    const waiting = await waitFor(async () => (await callJson(mcp, 'nostr_prompts')).prompts[0], 'the assistant to see the prompt');
    assert.equal(waiting.content, 'approved by an assistant');
    const answered = await callJson(mcp, 'nostr_prompts', { id: waiting.id, allow: true });
    assert.equal(answered.allow, true);
    const signed = await signing;
    assert.equal(verifyEvent(signed.value), true);
    assert.deepEqual((await state()).permissions, [], 'an assistant\'s answer is never kept');

    await panelCall('nostr_assistant_answers', { allowed: false });
    await waitFor(() => changed > 1, 'the second list_changed');
    assert.ok(!(await listed()).includes('nostr_prompts'));
    const pending = siteCall(`window.nostr.signEvent(${JSON.stringify(note('nobody allowed this'))})`);
    const prompt = await promptFrom(originA(), 'signEvent');
    const late = await mcp.callTool('nostr_prompts', { id: prompt.id, allow: true });
    assert.equal(late.structuredContent.error.code, 'UNKNOWN_TOOL', 'an assistant answered after the person took it back');
    await answer(prompt, false);
    assert.match((await pending).error, /denied/, 'no signature without a person\'s approval');
  }));

  test('a sandboxed frame (an opaque origin) gets a rejection it can show, and nobody is asked', logged(async () => {
    await callJson(mcp, 'open', { url: fixtures.url('/nostr-sandbox.html') });
    const shown = (selector) => async () => (await callText(mcp, 'get_text', { selector })).trim();
    const srcdoc = await waitFor(shown('#result'), 'the srcdoc frame\'s answer');
    assert.match(srcdoc, /^refused .*secure pages only.*null/, srcdoc);
    // Regression: a sandboxed frame loaded from the site's own address was
    // asked about under the site's origin (its location's), so its promise
    // waited on a prompt for the site. The page waits 30 s for an answer
    // here: settling within the 10 s of the wait means it was refused.
    const report = JSON.parse(await waitFor(shown('#from-url'), 'the sandboxed frame loaded from a URL to settle'));
    assert.equal(report.ok, false, `the sandboxed frame got an answer: ${JSON.stringify(report)}`);
    assert.match(report.error, /secure pages only.*not to null$/);
    assert.deepEqual((await state()).prompts, [], 'no prompt for the person');
  }));

  test('read-only and logged out: clear rejections', logged(async () => {
    await callJson(mcp, 'switch_identity', { method: 'readonly', npub: TEST_NPUB });
    const key = siteCall('window.nostr.getPublicKey()');
    await answer(await promptFrom(originA(), 'getPublicKey'), true);
    assert.deepEqual(await key, { ok: true, value: TEST_PUBKEY }, 'a read-only identity has a public key');
    const sign = await siteCall(`window.nostr.signEvent(${JSON.stringify(note('x'))})`);
    assert.match(sign.error, /read-only/, 'a read-only identity cannot sign');
    assert.deepEqual((await state()).prompts, [], 'nothing to ask about what cannot be done');

    // The page loads logged in, and asks after the logout: its script
    // waits for the fixture server, which answers once the test has logged
    // out, and tells the server when its call settled (tools, the one that
    // reads the page's answer included, wait for the next login).
    await site.start(`fetch('/hold?name=after-logout').then(() => window.nostr.getPublicKey())
      .finally(() => { fetch('/hold?name=settled-after-logout'); })`);
    await waitFor(() => fixtures.held('after-logout'), 'the page\'s call to start');
    await callJson(mcp, 'logout');
    fixtures.release('after-logout');
    await waitFor(() => fixtures.held('settled-after-logout'), 'the page\'s call to settle');
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    const out = await site.result();
    assert.equal(out.ok, false);
    assert.match(out.error, /no identity is logged in/);
  }));

  // Regression: an agent's eval in a page the person allowed "always"
  // signed as the person, with no prompt.
  test('in a tab an agent ran its own script in, "always" gives nothing: each request asks the person, marked as possibly the agent\'s', logged(async () => {
    const kept = async () => (await state()).permissions.map((d) => `${d.origin} ${d.capability} ${d.allow}`).sort();
    // A tab of its own, where no agent ran a script yet. The person allows
    // the site's own sign:1 always, and denies its sign:4 always.
    await callJson(mcp, 'tab_new', { url: appC() });
    const first = siteCall(sign('the site itself'), appC());
    await answer(await promptWith('the site itself'), true, true);
    assert.equal((await first).ok, true);
    const dm = siteCall(`window.nostr.signEvent({ kind: 4, content: 'dm', tags: [] })`, appC());
    await answer(await promptFrom(originC(), 'signEvent'), false, true);
    assert.match((await dm).error, /denied/);
    assert.deepEqual(await kept(), [`${originC()} sign:1 true`, `${originC()} sign:4 false`]);
    const again = await siteCall(sign('the site again'), appC());
    assert.equal(verifyEvent(again.value), true, 'the site\'s own call is granted by the decision, without a prompt');

    // The agent's eval there: a prompt, marked, instead of a signature.
    const evaled = inPage(settle(sign('the agent\'s')));
    const marked = await promptWith('the agent\'s');
    assert.equal(marked.agent_scripted, true);
    assert.match((await panelCall('window_layout')).nostr_prompts,
      /asks to sign events of kind 1, from a tab where an agent ran its own script/, 'the window\'s bar says so');
    // Assistants allowed to answer cannot answer it; the person's "always" is not kept.
    await panelCall('nostr_assistant_answers', { allowed: true });
    try {
      const byAssistant = await mcp.callTool('nostr_prompts', { id: marked.id, allow: true });
      assert.equal(byAssistant.structuredContent?.error?.code, 'NOT_ALLOWED', JSON.stringify(byAssistant));
      assert.match(byAssistant.structuredContent.error.message, /only the person answers it/);
    } finally {
      await panelCall('nostr_assistant_answers', { allowed: false });
    }
    assert.equal((await answer(marked, true, true)).remember, false, 'an "always" for a request that may be an agent\'s is not kept');
    assert.equal(verifyEvent((await evaled).value), true, 'allowed once by the person');
    assert.deepEqual(await kept(), [`${originC()} sign:1 true`, `${originC()} sign:4 false`]);
    // A standing denial still holds, without asking.
    const refused = await inPage(settle(`window.nostr.signEvent({ kind: 4, content: 'dm', tags: [] })`));
    assert.match(refused.error, /denied/);

    // A timer the agent's script planted signs later: asked about too.
    await inPage(`setTimeout(() => { window.nostr.signEvent(${JSON.stringify(note('planted'))}).catch(() => {}); }, 300); 'planted'`);
    const planted = await promptWith('planted');
    assert.equal(planted.agent_scripted, true);
    await answer(planted, false);

    // The site's own page, later in the same tab: the tab stays marked.
    await site.start(sign('later in the marked tab'), appC());
    assert.equal((await promptWith('later in the marked tab')).agent_scripted, true);
    await answer(await promptWith('later in the marked tab'), false);
    assert.match((await site.result()).error, /denied/);

    // A window the marked tab opens is marked too.
    const popupUrl = `nostr-app.html?popup#run=${encodeURIComponent(sign('from the popup'))}`;
    await inPage(`document.getElementById('popup').href = ${JSON.stringify(popupUrl)}; true`);
    const clicked = await callJson(mcp, 'click', { selector: '#popup' });
    assert.equal(clicked.new_tabs?.length, 1, JSON.stringify(clicked));
    const fromPopup = await promptWith('from the popup');
    assert.equal(fromPopup.agent_scripted, true);
    await answer(fromPopup, false);
    await callJson(mcp, 'tab_close', { index: clicked.new_tabs[0].index });
    await callJson(mcp, 'close');

    // And the site's own call in a tab no agent scripted is granted as before.
    await callJson(mcp, 'tab_new', { url: appC() });
    const unmarked = await siteCall(sign('in an unmarked tab'), appC());
    assert.equal(verifyEvent(unmarked.value), true);
    assert.deepEqual((await state()).prompts, []);
    await callJson(mcp, 'close');
    await panelCall('nostr_permission_revoke', { origin: originC() });
  }));

  test('the control panel in Chromium shows a prompt, answers it, lists and revokes the decision', logged(async () => {
    const chrome = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await chrome.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(browser.panelUrl);
      await page.locator('#nostr-prompts-empty').waitFor({ state: 'visible' });
      // Regression: the prompt counted the tags without showing them, nor
      // the date the event would carry.
      const tagged = { ...note('<b>shown as text</b>'), tags: [['t', 'sovereign'], ['p', TEST_PUBKEY], ['e', 'a'.repeat(64), 'wss://relay.example']] };
      const signing = siteCall(`window.nostr.signEvent(${JSON.stringify(tagged)})`);
      const card = page.locator('#nostr-prompts li');
      await card.waitFor();
      assert.equal(await card.locator('.origin').textContent(), originA());
      assert.match(await card.locator('.prompt-asks').textContent(), /sign events of kind 1/);
      assert.equal(await card.locator('.prompt-content').textContent(), '<b>shown as text</b>');
      assert.match(await card.locator('.prompt-kind').textContent(), /dated 2025-10-09 \d\d:\d\d:\d\d UTC · 3 tags/);
      assert.equal(await card.locator('.prompt-tags').textContent(), tagged.tags.map((t) => JSON.stringify(t)).join('\n'));
      assert.match(await page.title(), /^\(1\) /, 'the tab title counts waiting prompts');
      assert.equal(await card.locator('.prompt-agent').isVisible(), false, 'the site\'s own request carries no agent warning');
      await card.getByRole('button', { name: 'Always allow' }).click();
      const signed = await signing;
      assert.equal(verifyEvent(signed.value), true);
      assert.equal(signed.value.content, '<b>shown as text</b>');
      const row = page.locator('#nostr-permissions tbody tr');
      await row.waitFor();
      assert.equal(await row.locator('.origin').textContent(), originA());
      assert.equal(await row.locator('.capability').textContent(), 'Sign events of kind 1');
      assert.equal(await row.locator('.decision').textContent(), 'Allowed');
      assert.equal((await siteCall(`window.nostr.signEvent(${JSON.stringify(note('again'))})`)).ok, true,
        'kept: no prompt the second time');
      await row.getByRole('button', { name: 'Revoke' }).click();
      await row.waitFor({ state: 'detached' });
      assert.deepEqual((await state()).permissions, []);

      // An agent's own script asks: the card says so, and offers no "always".
      await callJson(mcp, 'tab_new', { url: appC() });
      const byAgent = inPage(settle(`window.nostr.signEvent(${JSON.stringify(note('an agent\'s script'))})`));
      const marked = page.locator('#nostr-prompts li', { hasText: 'an agent\'s script' });
      await marked.waitFor();
      assert.match(await marked.locator('.prompt-agent').innerText(), /An agent ran its own script in this tab/);
      assert.deepEqual(await marked.locator('.button-row button:visible').allInnerTexts(), ['Allow once', 'Deny']);
      await marked.getByRole('button', { name: 'Deny' }).click();
      assert.match((await byAgent).error, /denied/);
      await callJson(mcp, 'close');
    } finally {
      await chrome.close();
    }
  }));

  // Regression: a page an agent's route answered was the agent's, but its
  // tab was not marked: the person's "always" for the site signed its call
  // with no prompt. Last of this browser's tests: routing marks the
  // person's context for good (its proxy stays engaged).
  test('a page an agent\'s route answered gets nothing from "always": its request asks the person, marked as possibly the agent\'s', logged(async () => {
    // The person allows the site's own sign:1, always.
    await callJson(mcp, 'tab_new', { url: appC() });
    const first = siteCall(sign('the site before any route'), appC());
    await answer(await promptWith('the site before any route'), true, true);
    assert.equal((await first).ok, true);
    const again = await siteCall(sign('the site, no route yet'), appC());
    assert.equal(verifyEvent(again.value), true, 'the site\'s own call is granted by the decision');
    await callJson(mcp, 'close');
    // The agent answers a page of that site with its own.
    const page = `<!doctype html><title>Routed</title><script>
      ${sign('from the routed page')}.then(() => { document.title = 'signed'; }, () => { document.title = 'refused'; });
    </script>`;
    // The person lets agents route their window (the panel), not knowing what an agent will route.
    await panelCall('network_routes_allow', { allowed: true });
    await callJson(mcp, 'network_route', { url: '**/routed-by-agent.html', action: 'fulfill', body: page, headers: { 'Content-Type': 'text/html' } });
    try {
      await callJson(mcp, 'tab_new', { url: `${originC()}/routed-by-agent.html` });
      const asked = await promptWith('from the routed page');
      assert.equal(asked.agent_scripted, true, 'marked as possibly the agent\'s');
      assert.match((await panelCall('window_layout')).nostr_prompts, /from a tab where an agent ran its own script or routed its requests/);
      // Assistants allowed to answer cannot answer it.
      await panelCall('nostr_assistant_answers', { allowed: true });
      try {
        const byAssistant = await mcp.callTool('nostr_prompts', { id: asked.id, allow: true });
        assert.equal(byAssistant.structuredContent?.error?.code, 'NOT_ALLOWED', JSON.stringify(byAssistant));
        assert.match(byAssistant.structuredContent.error.message, /routed its requests.*only the person answers it/);
      } finally {
        await panelCall('nostr_assistant_answers', { allowed: false });
      }
      await answer(asked, false);
      await waitFor(async () => (await callJson(mcp, 'get_title')).title === 'refused', 'the page to hear the refusal');
    } finally {
      await callJson(mcp, 'network_unroute', { all: true }).catch(() => {});
      await callJson(mcp, 'close').catch(() => {});
      await panelCall('nostr_permission_revoke', { origin: originC() });
    }
  }));
});

describe('window.nostr: timeouts, persistence and a NIP-46 bunker', { timeout: 300_000 }, () => {
  let fixtures; let dir;
  before(async () => {
    fixtures = await startFixtureServer();
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-nip07-'));
  });
  after(async () => {
    await fixtures?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const start = () => startBrowser({
    baseArgs: ['--headless', '--no-panel', '--port', '0', '--log-level', 'info', '--profile', dir, '--nostr-prompt-timeout', '2'],
  });

  test('an unanswered prompt is a rejection; "always" survives a restart', async () => {
    let browser = await start();
    try {
      const mcp = await connectMcp(browser);
      const panel = await connectPanel(browser);
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      const site = siteCalls(mcp, fixtures.url('/nostr-app.html'));
      const r = await site.call('window.nostr.getPublicKey()');
      assert.equal(r.ok, false);
      assert.match(r.error, /nobody answered within 2 s/);
      assert.deepEqual((await panel.call('nostr_permissions')).result.prompts, [], 'the expired prompt is gone');

      const signing = site.call(`window.nostr.signEvent(${JSON.stringify(note('kept'))})`);
      const prompt = await waitFor(async () => (await panel.call('nostr_permissions')).result.prompts[0], 'the prompt');
      await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true, remember: true });
      assert.equal((await signing).ok, true);
      await panel.close();
      await mcp.close();
      await browser.stop();

      browser = await start();
      const again = await connectMcp(browser);
      await callJson(again, 'login', { method: 'local', nsec: TEST_NSEC });
      const signed = await siteCalls(again, fixtures.url('/nostr-app.html'))
        .call(`window.nostr.signEvent(${JSON.stringify(note('after a restart'))})`);
      assert.equal(signed.ok, true, `the kept decision was lost: ${signed.error}`);
      assert.equal(verifyEvent(signed.value), true);
      await again.close();
    } finally {
      await browser.stop();
    }
  });

  test('with a NIP-46 bunker login the signature comes from the bunker', async () => {
    const bunker = await startBunker();
    const browser = await start();
    try {
      const mcp = await connectMcp(browser);
      const panel = await connectPanel(browser);
      const login = await callJson(mcp, 'login', { method: 'nip46', bunker_url: bunker.url });
      assert.equal(login.pubkey, bunker.user);
      // sign:1 for this origin was kept by the previous test's profile, for
      // the other identity: the bunker's is asked, and the person allows it.
      const signing = siteCalls(mcp, fixtures.url('/nostr-app.html'))
        .call(`window.nostr.signEvent(${JSON.stringify(note('signed by the bunker'))})`);
      const prompt = await waitFor(async () => (await panel.call('nostr_permissions')).result.prompts[0], 'the prompt');
      assert.equal(prompt.pubkey, bunker.user, 'the bunker\'s identity is asked');
      await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true });
      const signed = await signing;
      await panel.close();
      assert.equal(signed.ok, true, signed.error);
      assert.equal(signed.value.pubkey, bunker.user);
      assert.notEqual(signed.value.pubkey, TEST_PUBKEY);
      assert.equal(verifyEvent(signed.value), true);
      await mcp.close();
    } finally {
      await browser.stop();
      bunker.stop();
    }
  });
});
