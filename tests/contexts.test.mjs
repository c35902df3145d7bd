// Contexts: agents side by side, each with its own cookies, storage, cache,
// service workers, tabs and window, and none of them seeing the person's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createECDH } from 'node:crypto';
import path from 'node:path';
import { REPO_ROOT, startBrowser } from './support/browser.mjs';
import { decodePng } from './support/png.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, TEST_PUBKEY, callError, callJson, connectMcp } from './support/mcp.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { loggedInSuite } from './support/session.mjs';
import { siteCalls } from './support/site_calls.mjs';
import { waitFor } from './support/wait.mjs';

// Agents' keys: private key n, and its x-only public key (BIP-340).
const privateKey = (n) => n.toString(16).padStart(64, '0');
const publicKeyOf = (n) => {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKey(n), 'hex'));
  return ecdh.getPublicKey('hex', 'compressed').slice(2);
};
const BOT_KEY = privateKey(1);
const BOT_PUBKEY = publicKeyOf(1);
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts');
// The bands of contexts' windows (src-rust/browser/window/chrome.rs), as r,g,b.
const BAND_COLOURS = ['1f6f43', '8a3b12', '1d4f91', '6b2c91', '8c6d00', '0f6b73']
  .map((hex) => [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(','));
const NOTHING = { cookie: null, local: null, session: null, idb: null, cached: null, worker: null };
const everything = (v) => ({ cookie: v, local: v, session: v, idb: v, cached: v, worker: v });

describe('contexts', { timeout: 240_000 }, () => {
  const suite = loggedInSuite({ args: ['--contexts-max', '4'] });
  let fixtures;
  let browser;
  let mcp;
  before(() => ({ fixtures, browser, mcp } = suite.session));
  const { logged, call } = suite;
  const store = (client, v) => callJson(client, 'eval', { script: `storeAll(${JSON.stringify(v)})` });
  const read = async (client) => (await callJson(client, 'eval', { script: 'readAll()' })).value;

  it('two contexts on one origin keep cookies, storage, IndexedDB, caches and service workers apart', logged(async () => {
    const page = fixtures.url('/context-store.html');
    await call('open', { url: page });
    await store(mcp, 'person');
    assert.deepEqual(await read(mcp), everything('person'));

    const opened = await call('context_new', { name: 'shop' });
    assert.equal(opened.context, 'shop');
    assert.equal(opened.ephemeral, true);
    assert.equal(opened.logged_in, false, 'a context has its own identity');
    await call('login', { method: 'local', nsec: TEST_NSEC });
    await call('open', { url: page });
    assert.deepEqual(await read(mcp), NOTHING, 'a new context sees nothing of the person\'s');
    await store(mcp, 'shop');
    assert.deepEqual(await read(mcp), everything('shop'));

    // A second tab of the context shares its data (not sessionStorage, which is per tab).
    await call('tab_new', { url: page });
    assert.deepEqual(await read(mcp), { ...everything('shop'), session: null });

    // Back in the person's context, nothing of the shop's.
    await call('open', { url: page, context: 'default' });
    assert.deepEqual(await read(mcp), everything('person'));
    await call('context_close', { context: 'shop' });
  }));

  it('a kept context has an HTTP cache of its own; an ephemeral one has none', logged(async () => {
    const page = fixtures.url('/context-store.html');
    const fetchIt = (name) => call('eval', { script: `fetch('/cached?name=${name}').then((r) => r.text())` });
    await call('open', { url: page, context: 'default' });
    await fetchIt('shared');
    await fetchIt('shared');
    assert.equal(fixtures.served('shared'), 1, 'the second fetch came from the person\'s cache');
    // A kept context: a cache of its own, apart from the person's.
    await call('context_new', { name: 'cachy', ephemeral: false });
    await call('login', { method: 'local', nsec: TEST_NSEC });
    await call('open', { url: page });
    await fetchIt('shared');
    assert.equal(fixtures.served('shared'), 2, 'a new context does not read the person\'s cache');
    await fetchIt('shared');
    assert.equal(fixtures.served('shared'), 2, 'it has a cache of its own');
    await call('context_close', { context: 'cachy' });
    // An ephemeral context keeps none (WebKit's ephemeral sessions cache nothing).
    await call('context_new', { name: 'fleeting' });
    await call('login', { method: 'local', nsec: TEST_NSEC });
    await call('open', { url: page });
    await fetchIt('shared');
    await fetchIt('shared');
    assert.equal(fixtures.served('shared'), 4, 'every fetch of an ephemeral context reaches the server');
    await call('context_close', { context: 'fleeting' });
  }));

  it('a context has its own window and tabs; lists stay inside it', logged(async () => {
    const before = (await call('tab_list', { context: 'default' })).tabs.length;
    const { tab } = await call('context_new', { name: 'lab', ephemeral: true });
    await call('login', { method: 'local', nsec: TEST_NSEC });
    const lab = await call('tab_list');
    assert.equal(lab.context, 'lab');
    assert.deepEqual(lab.tabs.map((t) => [t.id, t.current, t.front]), [[tab, true, true]]);
    assert.equal((await call('tab_list', { context: 'default' })).tabs.length, before);

    const listed = (await call('context_list')).contexts;
    assert.deepEqual(listed.map((c) => [c.context, c.default, c.current, c.tabs]),
      [['default', true, false, before], ['lab', false, true, 1]]);

    // The person sees the context's window: its name on a band, its tabs only.
    const panel = await connectPanel(browser);
    try {
      const layout = await agentCall(panel, 'window_layout', { context: 'lab' });
      assert.equal(layout.context_band, 'Context: lab (ephemeral)');
      assert.deepEqual(layout.tabs.map((t) => t.id), [tab]);
      const person = await agentCall(panel, 'window_layout');
      assert.equal(person.context_band, null);
      assert.equal(person.tabs.length, before);
      // The picture the person sees: the band's colour across the top of the
      // context's window, none on theirs.
      const shot = async (args) => Buffer.from((await agentCall(panel, 'window_screenshot', args)).data, 'base64');
      const [labShot, personShot] = [await shot({ context: 'lab' }), await shot({})];
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(path.join(ARTIFACTS, 'window-context.png'), labShot);
      const top = (png) => decodePng(png).pixel(4, 4).slice(0, 3).join(',');
      assert.ok(BAND_COLOURS.includes(top(labShot)), `band colour at the top: ${top(labShot)}`);
      assert.ok(!BAND_COLOURS.includes(top(personShot)), `the person's window has no band: ${top(personShot)}`);
    } finally {
      panel.close();
    }
    await call('context_close', { context: 'lab' });
  }));

  it('closing a context ends its agent\'s calls there with NO_CONTEXT, once', logged(async () => {
    const other = await connectMcp(browser, { name: 'second-agent' });
    try {
      await callJson(other, 'context_new', { name: 'gone' });
      await callJson(other, 'login', { method: 'local', privkey_hex: BOT_KEY });
      await callJson(other, 'open', { url: fixtures.url('/context-store.html') });
      await call('context_close', { context: 'gone' });
      await callError(other, 'get_url', {}, 'NO_CONTEXT');
      // Then it works in the person's context again, with the person's identity.
      assert.equal((await callJson(other, 'login_status')).pubkey, TEST_PUBKEY);
      const { tabs, context } = await callJson(other, 'tab_list');
      assert.equal(context, 'default');
      assert.ok(tabs.length >= 1);
      assert.ok(!(await call('context_list')).contexts.some((c) => c.context === 'gone'));
    } finally {
      await other.close().catch(() => {});
    }
  }));

  it('offline, extra headers and credentials hold in one context, not in another', logged(async () => {
    const headersSeen = async (client) => {
      await callJson(client, 'open', { url: fixtures.url('/echo') });
      const text = (await callJson(client, 'eval', { script: "document.querySelector('#echo').textContent" })).value;
      return JSON.parse(text).headers;
    };
    const other = await connectMcp(browser, { name: 'offline-agent' });
    try {
      await callJson(other, 'context_new', { name: 'cut' });
      await callJson(other, 'login', { method: 'local', privkey_hex: BOT_KEY });
      await callJson(other, 'open', { url: fixtures.url('/form.html') });
      await callJson(other, 'set_offline', { offline: true });
      await callJson(other, 'set_headers', { headers: { 'X-Context': 'cut' } });
      await callJson(other, 'set_credentials', { user: 'agent', pass: 's3cret', origin: fixtures.url('/auth') });
      assert.equal((await callJson(other, 'eval', { script: 'navigator.onLine' })).value, false);
      assert.match(await callError(other, 'open', { url: fixtures.url('/form.html?again') }, 'NAVIGATION_FAILED'), /connect/i);

      // The person's context is online, sends no extra header and answers
      // no HTTP authentication with the other context's credentials.
      await call('open', { url: fixtures.url('/form.html'), context: 'default' });
      assert.equal((await call('eval', { script: 'navigator.onLine' })).value, true);
      assert.equal((await headersSeen(mcp))['x-context'], undefined);
      assert.match(await callError(mcp, 'open', { url: fixtures.url('/auth') }, 'NAVIGATION_FAILED'), /set_credentials/);

      // The other context, back online, sends its header and answers the site.
      await callJson(other, 'set_offline', { offline: false });
      assert.equal((await headersSeen(other))['x-context'], 'cut');
      await callJson(other, 'open', { url: fixtures.url('/auth') });
      assert.equal((await callJson(other, 'eval', { script: "document.querySelector('#auth').textContent" })).value, 'welcome agent');
      await callJson(other, 'context_close', { context: 'cut' });
    } finally {
      await other.close().catch(() => {});
    }
  }));

  it('bad names, the person\'s context and the bound are refused with their codes', logged(async () => {
    for (const name of ['Shop', '../up', 'a b', '', 'x'.repeat(33)]) {
      await callError(mcp, 'context_new', { name }, 'INVALID_PARAMS');
    }
    await callError(mcp, 'context_new', { name: 'default' }, 'INVALID_PARAMS');
    await callError(mcp, 'context_close', { context: 'default' }, 'NOT_ALLOWED');
    await callError(mcp, 'context_close', { context: 'never' }, 'NO_CONTEXT');
    await callError(mcp, 'tab_new', { context: 'never' }, 'NO_CONTEXT');
    const names = [];
    for (let i = 0; i < 4; i++) {
      names.push((await call('context_new')).context);
      await call('login', { method: 'local', nsec: TEST_NSEC });
    }
    assert.equal(new Set(names).size, 4);
    await callError(mcp, 'context_new', {}, 'BUSY');
    // Closing its own context takes the session back to the person's.
    for (const context of names) await call('context_close', { context });
    assert.equal((await call('tab_list')).context, 'default');
    await call('context_new', { name: 'again' });
    await call('login', { method: 'local', nsec: TEST_NSEC });
    await call('context_close', { context: 'again' });
    assert.equal((await call('login_status')).pubkey, TEST_PUBKEY);
  }));

  it('each context has its own identity and window.nostr decisions; the person\'s stay', logged(async () => {
    const panel = await connectPanel(browser);
    const bot = await connectMcp(browser, { name: 'bot' });
    const answer = async (other) => {
      const prompt = await waitFor(async () => {
        const reply = await panel.call('nostr_permissions', {});
        return reply.result.prompts.find((p) => p.method === 'getPublicKey' && p.other_context === other);
      }, `a getPublicKey prompt (other context: ${other})`);
      const reply = await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true, remember: true });
      assert.equal(reply.ok, true, JSON.stringify(reply.error));
    };
    try {
      await callJson(bot, 'context_new', { name: 'bot' });
      await callError(bot, 'open', { url: fixtures.url('/nostr-app.html') }, 'NOT_LOGGED_IN');
      await callJson(bot, 'login', { method: 'local', privkey_hex: BOT_KEY });
      assert.equal((await callJson(bot, 'login_status')).pubkey, BOT_PUBKEY);
      assert.equal((await call('login_status')).pubkey, TEST_PUBKEY, 'the person\'s identity is untouched');

      // The person allows the site for good, in their context.
      const person = siteCalls(mcp, fixtures.url('/nostr-app.html'));
      // (A tab of its own: in one an agent ran its script in, "always" is not kept.)
      await call('tab_new', { url: fixtures.url('/context-store.html'), context: 'default' });
      await person.start('window.nostr.getPublicKey()');
      await answer(false);
      assert.deepEqual((await person.result()).value, TEST_PUBKEY);

      // The same site in the bot's context: asked again (the person's
      // decision is not the bot's), and it gets the bot's key.
      const site = siteCalls(bot, fixtures.url('/nostr-app.html'));
      await site.start('window.nostr.getPublicKey()');
      await answer(true);
      assert.deepEqual((await site.result()).value, BOT_PUBKEY);
      // "Always" in the bot's context holds there: asked no more, and the
      // panel lists the decision under the bot's context.
      assert.deepEqual((await site.call('window.nostr.getPublicKey()')).value, BOT_PUBKEY);
      const kept = (await panel.call('nostr_permissions', {})).result.permissions;
      const origin = new URL(fixtures.url('/')).origin;
      assert.deepEqual(kept.filter((d) => d.capability === 'public_key' && d.origin === origin).map((d) => d.context).sort(),
        ['bot', 'default']);
      // Its own context's decisions only: the person revokes the bot's,
      // and the bot's page is asked again while the person's is not.
      const revoked = await panel.call('nostr_permission_revoke', { origin, context: 'bot' });
      assert.equal(revoked.result.revoked, 1);
      await site.start('window.nostr.getPublicKey()');
      await answer(true);
      assert.deepEqual((await site.result()).value, BOT_PUBKEY);
      assert.deepEqual((await person.call('window.nostr.getPublicKey()')).value, TEST_PUBKEY);

      // The panel shows each context's identity; the window of each its own.
      const contexts = (await panel.call('window_layout', { context: 'bot' })).result;
      assert.match(contexts.identity, /npub1/);
      assert.notEqual(contexts.identity, (await panel.call('window_layout', {})).result.identity);

      // Logging the bot out leaves the person logged in.
      await callJson(bot, 'logout');
      assert.equal((await call('login_status')).pubkey, TEST_PUBKEY);
      await callJson(bot, 'login', { method: 'local', privkey_hex: BOT_KEY });
      await callJson(bot, 'context_close', { context: 'bot' });
    } finally {
      panel.close();
      await bot.close().catch(() => {});
    }
  }));

  it('four agents, each in its own context with its own key, sign in, fill a form and sign at once', logged(async () => {
    const panel = await connectPanel(browser);
    const agents = await Promise.all([1, 2, 3, 4].map(async (n) => {
      const name = `agent${n}`;
      const client = await connectMcp(browser, { name });
      return { name, client, key: privateKey(n), pubkey: publicKeyOf(n) };
    }));
    let running = true;
    // The person answers each agent's signing request, once each.
    const answered = new Set();
    const person = (async () => {
      while (running) {
        const { result } = await panel.call('nostr_permissions', {});
        for (const prompt of result.prompts.filter((p) => p.other_context && !answered.has(p.id))) {
          answered.add(prompt.id);
          await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true, remember: false });
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const flow = async ({ name, client, key }) => {
      const call = (tool, args = {}) => callJson(client, tool, args);
      await call('context_new', { name });
      await call('login', { method: 'local', privkey_hex: key });
      // Sign in: the site keeps the account in its cookie and storage.
      await call('open', { url: fixtures.url('/context-store.html') });
      await call('eval', { script: `storeAll(${JSON.stringify(name)})` });
      // A form, typed with trusted keys, and sent.
      await call('open', { url: fixtures.url('/form.html') });
      await call('type', { selector: '#name', value: `${name} typed this` });
      await call('click', { selector: '#create' });
      const got = (await call('eval', { script: "document.querySelector('#got-name')?.textContent" })).value;
      // Back to the account: only its own.
      await call('open', { url: fixtures.url('/context-store.html') });
      const account = (await call('eval', { script: 'readAll()' })).value;
      // The site asks window.nostr to sign; the person allows it.
      const site = siteCalls(client, fixtures.url('/nostr-app.html'));
      const signed = await site.call(`window.nostr.signEvent({ kind: 1, content: ${JSON.stringify(name)}, tags: [], created_at: 1700000000 })`);
      return { got, account, signed };
    };
    try {
      const results = await Promise.all(agents.map(flow));
      for (const [i, { got, account, signed }] of results.entries()) {
        const { name, pubkey } = agents[i];
        assert.equal(got, `${name} typed this`, `${name}'s form got its own typing`);
        assert.deepEqual([account.cookie, account.local, account.idb], [name, name, name], `${name} sees its own account`);
        assert.equal(signed.ok, true, JSON.stringify(signed));
        assert.deepEqual([signed.value.pubkey, signed.value.content], [pubkey, name], `${name} signs with its own key`);
      }
      assert.equal((await call('login_status')).pubkey, TEST_PUBKEY, 'the person\'s identity is untouched');
    } finally {
      running = false;
      await person;
      panel.close();
      for (const { name, client } of agents) {
        await callJson(client, 'context_close', { context: name }).catch(() => {});
        await client.close().catch(() => {});
      }
    }
  }));
});

describe('contexts on disk', { timeout: 240_000 }, () => {
  let fixtures;
  let profile;
  before(async () => {
    fixtures = await startFixtureServer();
    profile = mkdtempSync(path.join(tmpdir(), 'sovereign-contexts-'));
  });
  after(async () => {
    await fixtures?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const start = async () => {
    const browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile] });
    const mcp = await connectMcp(browser);
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    return { browser, mcp, async stop() { await mcp.close().catch(() => {}); await browser.stop(); } };
  };
  // Every file under the profile. WebKit's helper processes may still be
  // tidying up after the browser ended: a file gone meanwhile is skipped.
  const gone = (error) => { if (error.code !== 'ENOENT') throw error; return null; };
  const files = (dir = profile) => readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    let info;
    try { info = statSync(full); } catch (error) { return gone(error) ?? []; }
    return info.isDirectory() ? files(full) : [full];
  });
  const holds = (file, marker) => {
    // As text, or as WebKit keeps storage values: UTF-16.
    const forms = [Buffer.from(marker, 'utf8'), Buffer.from(marker, 'utf16le')];
    try {
      const bytes = readFileSync(file);
      return forms.some((form) => bytes.includes(form));
    } catch (error) {
      return gone(error) ?? false;
    }
  };
  const holding = (marker) => files().filter((f) => holds(f, marker));

  it('an ephemeral context writes nothing; a kept one is there again after a restart', async () => {
    let run = await start();
    const page = fixtures.url('/context-store.html');
    try {
      await callJson(run.mcp, 'open', { url: page });
      const marker = `mark${Date.now()}`;
      await callJson(run.mcp, 'context_new', { name: 'passing' });
      await callJson(run.mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(run.mcp, 'open', { url: page });
      await callJson(run.mcp, 'eval', { script: `storeAll(${JSON.stringify(marker)})` });
      assert.equal((await callJson(run.mcp, 'eval', { script: 'readAll()' })).value.local, marker);
      await callJson(run.mcp, 'context_close', { context: 'passing' });

      await callJson(run.mcp, 'context_new', { name: 'kept', ephemeral: false });
      await callJson(run.mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(run.mcp, 'open', { url: page });
      await callJson(run.mcp, 'eval', { script: "storeAll('keptvalue')" });
      // The person allows a site for good in the kept context (in a tab no
      // agent ran its script in: there "always" is not kept).
      await callJson(run.mcp, 'tab_new', {});
      const panel = await connectPanel(run.browser);
      try {
        const site = siteCalls(run.mcp, fixtures.url('/nostr-app.html'));
        await site.start('window.nostr.getPublicKey()');
        const prompt = await waitFor(async () => (await panel.call('nostr_permissions', {})).result.prompts
          .find((p) => p.context === 'kept'), 'the kept context\'s prompt');
        await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true, remember: true });
        assert.equal((await site.result()).value, TEST_PUBKEY);
      } finally {
        panel.close();
      }
    } finally {
      await run.stop();
    }
    assert.deepEqual(holding('mark'), [], 'no file holds what the ephemeral context stored');
    // The same search finds what the kept context stored, in its own folder
    // (the audit names the context, not what it stored), and in the
    // recording of the agent's call that stored it (kept contexts' calls
    // are recorded in the profile; ephemeral ones' in memory only).
    const keptFiles = holding('keptvalue');
    const where = (f) => f.includes(path.join('contexts', 'kept')) || f.includes(`${path.sep}recordings${path.sep}`);
    assert.ok(keptFiles.some((f) => f.includes(path.join('contexts', 'kept'))) && keptFiles.every(where), keptFiles.join('\n'));
    assert.ok(!files().some((f) => f.includes(`${path.sep}passing`)), 'no folder for the ephemeral context');

    run = await start();
    try {
      await callJson(run.mcp, 'context_new', { name: 'kept', ephemeral: false });
      await callJson(run.mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(run.mcp, 'open', { url: page });
      const kept = (await callJson(run.mcp, 'eval', { script: 'readAll()' })).value;
      assert.deepEqual({ cookie: kept.cookie, local: kept.local, idb: kept.idb },
        { cookie: 'keptvalue', local: 'keptvalue', idb: 'keptvalue' });
      // Its window.nostr decision came back with it: no prompt this time.
      await callJson(run.mcp, 'tab_new', {});
      const site = siteCalls(run.mcp, fixtures.url('/nostr-app.html'));
      assert.equal((await site.call('window.nostr.getPublicKey()')).value, TEST_PUBKEY);
      // The person's context never saw the kept context's data.
      await callJson(run.mcp, 'open', { url: page, context: 'default' });
      const person = (await callJson(run.mcp, 'eval', { script: 'readAll()' })).value;
      assert.equal(person.local, null);
    } finally {
      await run.stop();
    }
  });
});

// Regression: four agents calling context_new at the same moment got one
// context and three INVALID_PARAMS "context-2 is already open" (the name was
// chosen from a picture of the browser that the others' calls changed).
describe('contexts side by side', { timeout: 300_000 }, () => {
  it('eight agents open, use and close contexts at once, each in its own', { timeout: 240_000 }, async () => {
    const fixtures = await startFixtureServer();
    const browser = await startBrowser({ args: ['--contexts-max', '8'] });
    const page = fixtures.url('/context-store.html');
    const agents = [];
    try {
      for (let i = 0; i < 8; i++) agents.push(await connectMcp(browser, { name: `agent-${i}` }));
      await callJson(agents[0], 'login', { method: 'local', nsec: TEST_NSEC });
      for (const round of [1, 2]) {
        const runs = await Promise.all(agents.map(async (agent, i) => {
          const opened = await callJson(agent, 'context_new', {});
          await callJson(agent, 'login', { method: 'local', privkey_hex: privateKey(i + 2) });
          await callJson(agent, 'open', { url: page });
          const found = (await callJson(agent, 'eval', { script: 'readAll()' })).value;
          await callJson(agent, 'eval', { script: `storeAll(${JSON.stringify(`agent${i}`)})` });
          const kept = (await callJson(agent, 'eval', { script: 'readAll()' })).value;
          const who = (await callJson(agent, 'login_status')).pubkey;
          const tabs = (await callJson(agent, 'tab_list')).tabs.length;
          await callJson(agent, 'context_close', { context: opened.context });
          return { name: opened.context, found, kept, who, tabs };
        }));
        assert.equal(new Set(runs.map((r) => r.name)).size, 8, `round ${round}: eight names ${runs.map((r) => r.name)}`);
        runs.forEach((r, i) => {
          assert.deepEqual(r.found, NOTHING, `round ${round}, agent ${i}: a new context holds nothing of the others'`);
          assert.deepEqual(r.kept, everything(`agent${i}`), `round ${round}, agent ${i}: it keeps its own`);
          assert.equal(r.who, publicKeyOf(i + 2), `round ${round}, agent ${i}: its own identity`);
          assert.equal(r.tabs, 1, `round ${round}, agent ${i}: its own tab only`);
        });
        const open = (await callJson(agents[0], 'context_list')).contexts.map((c) => c.context);
        assert.deepEqual(open, ['default'], `round ${round}: every context closed`);
      }
      // The bound holds under the same rush: nine at once with room for eight.
      const extra = await connectMcp(browser, { name: 'agent-9' });
      agents.push(extra);
      const tries = await Promise.all(agents.map((agent) => agent.callTool('context_new', {})));
      const codes = tries.map((r) => r.structuredContent?.error?.code ?? 'ok').sort();
      assert.deepEqual(codes, ['BUSY', ...Array(8).fill('ok')], JSON.stringify(codes));
    } finally {
      for (const agent of agents) await agent.close().catch(() => {});
      await browser.stop();
      await fixtures.close();
    }
  });
});
