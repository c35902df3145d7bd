// The nip46 login through MCP and /agent, against a real bunker
// (rust-nostr's remote signer) on a real relay on 127.0.0.1, and the
// auth_url challenge of a bunker that asks for approval first.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './support/wait.mjs';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startBunker } from './support/bunker.mjs';
import { connectAgent, connectPanel, agentCall, agentError } from './support/agent.mjs';
import { TEST_NPUB, TEST_PUBKEY, callError, callJson, connectMcp } from './support/mcp.mjs';


describe('nip46 login', { timeout: 180_000 }, () => {
  let browser;
  let mcp;
  let log = '';
  const bunkers = [];
  const test = (name, fn, opts = {}) => it(name, { timeout: 60_000, ...opts }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);

  before(async () => {
    browser = await startBrowser({ args: ['--log-level', 'trace'] });
    browser.proc.stderr.on('data', (d) => { log += d; });
    mcp = await connectMcp(browser);
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
    for (const b of bunkers) b.stop();
  });

  test('a real bunker: login, reachability, then the bunker goes away', async () => {
    const bunker = await startBunker();
    bunkers.push(bunker);
    const login = await call('login', { method: 'nip46', bunker_url: bunker.url });
    assert.equal(login.method, 'nip46');
    assert.equal(login.pubkey, bunker.user);
    const status = await call('login_status');
    assert.equal(status.signer_reachable, true);
    assert.ok(!JSON.stringify(status).includes('test-bunker-secret'), 'the bunker secret is never returned');
    assert.ok(!log.includes('test-bunker-secret'), 'nor logged, even at trace level');
    assert.equal(typeof (await call('get_url')).url, 'string');
    bunker.stop();
    await waitFor(async () => (await call('login_status')).signer_reachable === false, 'the status to show the bunker gone');
  });

  test('an auth_url challenge is surfaced and the login completes once approved', async () => {
    const bunker = await startBunker(['--auth-url']);
    bunkers.push(bunker);
    const first = await call('switch_identity', { method: 'nip46', bunker_url: bunker.url });
    assert.equal(first.logged_in, false);
    assert.equal(first.pending.auth_url, bunker.approve);
    assert.equal((await call('login_status')).pending.auth_url, bunker.approve);
    await callError(mcp, 'get_url', {}, 'NOT_LOGGED_IN');
    // The person opens the link and approves.
    const approval = await fetch(bunker.approve);
    assert.equal(approval.status, 200);
    const status = await waitFor(async () => {
      const s = await call('login_status');
      return s.logged_in ? s : null;
    }, 'the approved login');
    assert.equal(status.pubkey, bunker.user);
    assert.equal(status.method, 'nip46');
    // Regression: the auth_url (which may carry a one-time token) was logged.
    assert.match(log, /the bunker asks for approval at (its|an) auth_url/, 'the line is there');
    assert.ok(!log.includes(bunker.approve), 'the auth_url itself is never logged');
    assert.ok(!log.includes(new URL(bunker.approve).host), 'not even its host');
  });

  test('the same login over /agent', async () => {
    const bunker = await startBunker();
    bunkers.push(bunker);
    const agent = await connectAgent(browser);
    try {
      await agentCall(agent, 'logout');
      agentError(await agent.call('get_url'), 'NOT_LOGGED_IN');
      const login = await agentCall(agent, 'login', { method: 'nip46', bunker_url: bunker.url });
      assert.equal(login.pubkey, bunker.user);
      assert.equal(typeof (await agentCall(agent, 'get_url')).url, 'string');
    } finally {
      agent.close();
    }
  });

  // Regression: the key a bunker reported became the identity, unproven.
  test('a bunker that claims the person\'s key but does not sign with it is refused, and nothing changes', async () => {
    const panel = await connectPanel(browser);
    try {
      await call('switch_identity', { method: 'readonly', npub: TEST_NPUB });
      const before = await call('login_status');
      const remembered = async () => (await agentCall(panel, 'identity_list')).identities;
      const rememberedBefore = await remembered();
      // Reports the person's key (TEST_PUBKEY), signs with one of its own.
      const fake = await startBunker(['--claim', TEST_PUBKEY]);
      bunkers.push(fake);
      assert.notEqual(fake.user, TEST_PUBKEY);
      const refused = await callError(mcp, 'login', { method: 'nip46', bunker_url: fake.url, remember: true }, 'SIGNER_REJECTED');
      assert.match(refused, /does not prove that it holds the key it reports/);
      assert.deepEqual(await call('login_status'), before);
      assert.deepEqual(await remembered(), rememberedBefore);
    } finally {
      panel.close();
    }
  });

  test('bad bunker URLs are INVALID_PARAMS naming bunker_url', async () => {
    const pk = '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e';
    assert.match(await callError(mcp, 'login', { method: 'nip46' }, 'INVALID_PARAMS'), /bunker_url: required/);
    assert.match(await callError(mcp, 'login', { method: 'nip46', bunker_url: `bunker://${pk}` }, 'INVALID_PARAMS'), /bunker_url: has no relay/);
    assert.match(await callError(mcp, 'login', { method: 'nip46', bunker_url: 'https://example.org' }, 'INVALID_PARAMS'), /bunker_url: must start with bunker:\/\//);
  });

  test('a bunker that never answers is SIGNER_UNAVAILABLE naming the relay', async () => {
    // A live relay, but nobody serving that bunker key on it.
    const bunker = await startBunker();
    bunkers.push(bunker);
    await call('logout');
    const silent = bunker.url.replace(/bunker:\/\/[0-9a-f]{64}/, `bunker://${'ab'.repeat(32)}`);
    const why = await callError(mcp, 'login', { method: 'nip46', bunker_url: silent }, 'SIGNER_UNAVAILABLE');
    assert.match(why, /ws:\/\/127\.0\.0\.1:\d+/);
    const status = await call('login_status');
    assert.equal(status.logged_in, false);
    assert.equal(status.pending, undefined, 'the failed login is not left pending');
  }, { timeout: 90_000 });
});
