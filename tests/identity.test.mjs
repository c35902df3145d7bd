// Identity over MCP and /agent: the login methods this build has, the gate,
// and secrets that never show up in results or logs (even at trace level).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { connectAgent, agentCall, agentError } from './support/agent.mjs';
import { TEST_NSEC, TEST_NPUB, callError, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

// NIP-06's published vectors.
const WORDS_12 = 'leader monkey parrot ring guide accident before fence cannon height naive bean';
const NPUB_12 = 'npub1zutzeysacnf9rru6zqwmxd54mud0k44tst6l70ja5mhv8jjumytsd2x7nu';
const PUBKEY_12_ACCOUNT_1 = 'd977a6cf0f831dc4720780b5f51460eaf6dca08e32d1f6e89b60344d63af4e04';
const WORDS_24 = 'what bleak badge arrange retreat wolf trade produce cricket blur garlic valid proud rude strong choose busy staff weather area salt hollow arm fade';
const NPUB_24 = 'npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h';
const PRIVKEY_HEX = '67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa';

describe('identity', { timeout: 180_000 }, () => {
  let browser;
  let mcp;
  let log = '';
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);

  before(async () => {
    browser = await startBrowser({ args: ['--log-level', 'trace'] });
    browser.proc.stderr.on('data', (d) => { log += d; });
    mcp = await connectMcp(browser);
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
  });

  test('seed login derives the NIP-06 keys, for account 0 and account 1', async () => {
    const first = await call('login', { method: 'seed', mnemonic: WORDS_12 });
    assert.equal(first.method, 'seed');
    assert.equal(first.npub, NPUB_12);
    const second = await call('switch_identity', { method: 'seed', mnemonic: WORDS_12, account: 1 });
    assert.equal(second.pubkey, PUBKEY_12_ACCOUNT_1);
    assert.equal((await call('login_status')).pubkey, PUBKEY_12_ACCOUNT_1);
    // Browser tools work with it.
    assert.equal(typeof (await call('get_url')).url, 'string');
  });

  test('a 64-hex private key logs in like its nsec', async () => {
    const hex = await call('login', { method: 'local', privkey_hex: PRIVKEY_HEX });
    assert.equal(hex.npub, TEST_NPUB);
  });

  test('bad input is INVALID_PARAMS naming the field', async () => {
    const words = await callError(mcp, 'login', { method: 'seed', mnemonic: 'leader monkey parrot' }, 'INVALID_PARAMS');
    assert.match(words, /mnemonic: expected 12 or 24 words/);
    const unknown = await callError(mcp, 'login', { method: 'seed', mnemonic: WORDS_12.replace('parrot', 'parrots') }, 'INVALID_PARAMS');
    assert.match(unknown, /mnemonic: word 3/);
    const short = await callError(mcp, 'login', { method: 'local', privkey_hex: 'abcd' }, 'INVALID_PARAMS');
    assert.match(short, /privkey_hex: must be 64 hex characters/);
    const npub = await callError(mcp, 'login', { method: 'readonly', npub: TEST_NPUB.slice(0, -1) + 'q' }, 'INVALID_PARAMS');
    assert.match(npub, /npub: not a valid npub/);
    await callError(mcp, 'login', { method: 'carrier-pigeon' }, 'INVALID_PARAMS');
  });

  test('fields of two methods are refused naming both, and change nothing', async () => {
    await call('login', { method: 'readonly', npub: NPUB_24 });
    const result = await mcp.callTool('login', { method: 'seed', mnemonic: WORDS_12, privkey_hex: PRIVKEY_HEX });
    assert.equal(result.isError, true);
    const { error } = result.structuredContent;
    assert.equal(error.code, 'INVALID_PARAMS');
    assert.equal(error.field, 'privkey_hex');
    assert.match(error.message, /mnemonic and privkey_hex: privkey_hex belongs to method local, not seed/);
    const foreign = await callError(mcp, 'switch_identity', { method: 'readonly', npub: TEST_NPUB, bunker_url: 'bunker://x' }, 'INVALID_PARAMS');
    assert.match(foreign, /npub and bunker_url/);
    // Neither call logged in or out: the readonly identity is still there.
    const status = await call('login_status');
    assert.equal(status.npub, NPUB_24);
    assert.equal(status.method, 'readonly');
  });

  test('a failed switch leaves the browser logged out, never half-switched', async () => {
    await call('login', { method: 'local', nsec: TEST_NSEC });
    await callError(mcp, 'switch_identity', { method: 'local', nsec: 'nsec1broken' }, 'INVALID_PARAMS');
    assert.equal((await call('login_status')).logged_in, false);
    await callError(mcp, 'get_url', {}, 'NOT_LOGGED_IN');
  });

  test('the same logins work over /agent, and the gate follows them', async () => {
    const agent = await connectAgent(browser);
    try {
      await agentCall(agent, 'logout');
      agentError(await agent.call('get_url'), 'NOT_LOGGED_IN');
      const seed = await agentCall(agent, 'login', { method: 'seed', mnemonic: WORDS_24 });
      assert.equal(seed.npub, NPUB_24);
      assert.equal(typeof (await agentCall(agent, 'get_url')).url, 'string');
      const readonly = await agentCall(agent, 'switch_identity', { method: 'readonly', npub: TEST_NPUB });
      assert.equal(readonly.method, 'readonly');
      await agentCall(agent, 'logout');
      agentError(await agent.call('get_url'), 'NOT_LOGGED_IN');
    } finally {
      agent.close();
    }
  });

  test('no secret appears in any result or in the trace-level log', async () => {
    const from = log.length;
    const results = [];
    results.push(await call('login', { method: 'local', nsec: TEST_NSEC }));
    results.push(await call('login', { method: 'local', privkey_hex: PRIVKEY_HEX }));
    results.push(await call('login', { method: 'seed', mnemonic: WORDS_24, passphrase: 'correct horse' }));
    results.push(await call('login_status'));
    // The log has the last call's line: everything these calls logged is in.
    const lines = () => log.slice(from).split('\n');
    await waitFor(() => lines().filter((l) => l.includes('identity logged in')).length === 3
      && lines().some((l) => l.includes('tool ok') && l.includes('login_status')),
    'the log to record the three logins and the login_status call');
    assert.ok(log.length > 1000, 'the trace log should have content');
    assert.match(log, /identity logged in/, 'the log should record the logins');
    const haystack = `${log}\n${JSON.stringify(results)}`;
    for (const secret of [TEST_NSEC, PRIVKEY_HEX, 'correct horse', 'bleak badge arrange', 'garlic valid proud']) {
      assert.ok(!haystack.includes(secret), `a secret leaked: ${secret.slice(0, 12)}...`);
    }
    // The server's bearer token is a secret too: never in the log.
    assert.ok(browser.token && !log.includes(browser.token), 'the bearer token appears in the log');
  });
});
