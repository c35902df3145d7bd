// Remembering identities across restarts, by choice: public parts in the
// profile, a private key only as a NIP-49 ncryptsec under a password.
import { connectPanel, agentCall } from './support/agent.mjs';
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBrowser } from './support/browser.mjs';
import { waitFor } from './support/wait.mjs';
import { TEST_NSEC, TEST_NPUB, callError, callJson, connectMcp } from './support/mcp.mjs';

const PRIVKEY_HEX = '67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa';
const WORDS_12 = 'leader monkey parrot ring guide accident before fence cannon height naive bean';
const NPUB_12 = 'npub1zutzeysacnf9rru6zqwmxd54mud0k44tst6l70ja5mhv8jjumytsd2x7nu';
const READONLY_NPUB = 'npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h';

describe('remembered identities', { timeout: 180_000 }, () => {
  const profile = mkdtempSync(path.join(tmpdir(), 'sovereign-profile-'));
  const start = () => startBrowser({ baseArgs: ['--headless', '--no-panel', '--profile', profile, '--port', '0', '--log-level', 'info'] });
  after(() => rmSync(profile, { recursive: true, force: true }));

  it('survive a restart, unlock with the password, and can be forgotten', { timeout: 120_000 }, async () => {
    let browser = await start();
    let mcp = await connectMcp(browser);
    try {
      const need = await callError(mcp, 'login', { method: 'local', nsec: TEST_NSEC, remember: true }, 'INVALID_PARAMS');
      assert.match(need, /password: required to remember a private key/);
      const local = await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC, remember: true, password: 'correct horse battery' });
      assert.equal(local.remembered, true);
      const seeded = await callJson(mcp, 'login', { method: 'seed', mnemonic: WORDS_12, remember: true, password: 'another password' });
      assert.equal(seeded.npub, NPUB_12);
      await callJson(mcp, 'login', { method: 'readonly', npub: READONLY_NPUB, remember: true });
      // Listing and forgetting are the person's: the panel's connection asks.
      const panel = await connectPanel(browser);
      const listed = await agentCall(panel, 'identity_list');
      panel.close();
      await callError(mcp, 'identity_list', {}, 'UNKNOWN_TOOL');
      assert.deepEqual(listed.identities.map((i) => i.npub).sort(), [TEST_NPUB, NPUB_12, READONLY_NPUB].sort());
      assert.ok(!JSON.stringify(listed).includes('ncryptsec'), 'the encrypted key is not handed out');
      // On disk: owner-only, encrypted keys, no secret in clear.
      const file = path.join(profile, 'identities.json');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const stored = readFileSync(file, 'utf8');
      assert.match(stored, /ncryptsec1/);
      for (const secret of [TEST_NSEC, PRIVKEY_HEX, 'leader monkey', 'correct horse']) {
        assert.ok(!stored.includes(secret), `a secret is stored in clear: ${secret.slice(0, 10)}...`);
      }
      // The remembered identities are not in the public catalogue.
      const tools = (await mcp.listTools()).map((t) => t.name);
      assert.ok(!tools.includes('identity_list') && !tools.includes('identity_forget'));
    } finally {
      await mcp.close().catch(() => {});
      await browser.stop();
    }

    // After a restart: log in with a remembered identity.
    browser = await start();
    mcp = await connectMcp(browser);
    try {
      assert.equal((await callJson(mcp, 'login_status')).logged_in, false, 'remembering is not staying logged in');
      const wrong = await callError(mcp, 'login', { method: 'local', remembered: TEST_NPUB, password: 'wrong password!' }, 'INVALID_PARAMS');
      assert.match(wrong, /password: wrong password/);
      const back = await callJson(mcp, 'login', { method: 'local', remembered: TEST_NPUB, password: 'correct horse battery' });
      assert.equal(back.npub, TEST_NPUB);
      // Regression: wrong passwords could be tried as fast as scrypt runs.
      // A person's typos cost nothing; a guesser is slowed down.
      const right = { method: 'local', remembered: TEST_NPUB, password: 'correct horse battery' };
      for (const guess of ['guess one!', 'guess two!', 'guess three!']) {
        assert.match(await callError(mcp, 'login', { ...right, password: guess }, 'INVALID_PARAMS'), /wrong password/);
      }
      assert.match(await callError(mcp, 'login', right, 'INVALID_PARAMS'), /too many wrong passwords.*try again in \d+ s/);
      await waitFor(async () => (await mcp.callTool('login', right)).isError !== true, 'the unlock to be allowed again');
      assert.equal((await callJson(mcp, 'login_status')).npub, TEST_NPUB);
      const seedBack = await callJson(mcp, 'switch_identity', { method: 'seed', remembered: NPUB_12, password: 'another password' });
      assert.equal(seedBack.npub, NPUB_12);
      assert.equal(seedBack.method, 'seed');
      const ro = await callJson(mcp, 'login', { method: 'readonly', remembered: READONLY_NPUB });
      assert.equal(ro.npub, READONLY_NPUB);
      await callError(mcp, 'login', { method: 'readonly', remembered: TEST_NPUB }, 'INVALID_PARAMS');
      // Regression: an agent could forget the person's identities.
      await callError(mcp, 'identity_forget', { npub: TEST_NPUB }, 'UNKNOWN_TOOL');
      const panel = await connectPanel(browser);
      try {
        assert.equal((await agentCall(panel, 'identity_forget', { npub: TEST_NPUB })).forgotten, 1);
        await callError(mcp, 'login', { method: 'local', remembered: TEST_NPUB, password: 'correct horse battery' }, 'INVALID_PARAMS');
        assert.equal((await agentCall(panel, 'identity_list')).identities.length, 2);
      } finally {
        panel.close();
      }
    } finally {
      await mcp.close().catch(() => {});
      await browser.stop();
    }
  });

  // Regression: an agent's login with remember replaced the person's
  // remembered entry of the same npub and method (and so where, or under
  // which password, the person's next login would go).
  it('an agent\'s remember never replaces or changes what the person remembered', { timeout: 90_000 }, async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'sovereign-agent-remember-'));
    const browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--profile', own, '--port', '0', '--log-level', 'info'] });
    const mcp = await connectMcp(browser);
    const panel = await connectPanel(browser);
    const file = path.join(own, 'identities.json');
    try {
      // The person remembers their key under their password.
      const mine = await agentCall(panel, 'login', { method: 'local', nsec: TEST_NSEC, remember: true, password: 'the person\'s password' });
      assert.equal(mine.remembered, true);
      const stored = readFileSync(file, 'utf8');
      // An agent logs in with the same key and method, and with another, asking to remember.
      for (const args of [
        { method: 'local', nsec: TEST_NSEC, remember: true, password: 'the agent\'s password' },
        { method: 'readonly', npub: TEST_NPUB, remember: true },
      ]) {
        const theirs = await callJson(mcp, 'login', args);
        assert.equal(theirs.npub, TEST_NPUB, 'the login itself goes ahead');
        assert.equal(theirs.remembered, false);
        assert.match(theirs.not_remembered, /remembered already; only the person replaces or changes it/);
        assert.equal(readFileSync(file, 'utf8'), stored, 'the file is byte for byte the person\'s');
      }
      const listed = (await agentCall(panel, 'identity_list')).identities;
      assert.deepEqual(listed.map((i) => [i.npub, i.method]), [[TEST_NPUB, 'local']]);
      await callError(mcp, 'login', { method: 'local', remembered: TEST_NPUB, password: 'the agent\'s password' }, 'INVALID_PARAMS');
      assert.equal((await callJson(mcp, 'login', { method: 'local', remembered: TEST_NPUB, password: 'the person\'s password' })).npub, TEST_NPUB);
      // An agent still remembers a key nobody remembered yet; the person still replaces their own.
      assert.equal((await callJson(mcp, 'login', { method: 'readonly', npub: READONLY_NPUB, remember: true })).remembered, true);
      assert.equal((await agentCall(panel, 'login', { method: 'local', nsec: TEST_NSEC, remember: true, password: 'a new password!' })).remembered, true);
      assert.notEqual(readFileSync(file, 'utf8'), stored);
      assert.equal((await callJson(mcp, 'login', { method: 'local', remembered: TEST_NPUB, password: 'a new password!' })).npub, TEST_NPUB);
    } finally {
      panel.close();
      await mcp.close().catch(() => {});
      await browser.stop();
      rmSync(own, { recursive: true, force: true });
    }
  });

  // Regression: a file that did not parse was read as empty and then
  // overwritten by the next remembered login, losing the encrypted keys.
  it('a damaged file is kept aside, never replaced, and the panel says where', { timeout: 60_000 }, async () => {
    const damagedProfile = mkdtempSync(path.join(tmpdir(), 'sovereign-damaged-'));
    const garbage = '[{"npub": "npub1half-written';
    writeFileSync(path.join(damagedProfile, 'identities.json'), garbage);
    const browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--profile', damagedProfile, '--port', '0', '--log-level', 'info'] });
    const mcp = await connectMcp(browser);
    const panel = await connectPanel(browser);
    try {
      const listed = await agentCall(panel, 'identity_list');
      assert.deepEqual(listed.identities, []);
      assert.match(listed.damaged, /could not be read.*kept, unchanged, as .*identities\.json\.damaged-\d+/);
      let state;
      while ((state = await panel.nextUnmatched()).event !== 'state') { /* the call log comes first */ }
      assert.equal(state.data.remembered_damaged, listed.damaged, 'the panel is told, to show it');
      const aside = readdirSync(damagedProfile).filter((f) => f.startsWith('identities.json.damaged-'));
      assert.equal(aside.length, 1, `one file kept aside: ${readdirSync(damagedProfile)}`);
      assert.equal(readFileSync(path.join(damagedProfile, aside[0]), 'utf8'), garbage, 'kept byte for byte');
      await callJson(mcp, 'login', { method: 'readonly', npub: READONLY_NPUB, remember: true });
      assert.equal((await agentCall(panel, 'identity_list')).identities.length, 1, 'a new file beside it');
      assert.equal(readFileSync(path.join(damagedProfile, aside[0]), 'utf8'), garbage, 'the kept file is untouched');
      assert.equal(statSync(path.join(damagedProfile, 'identities.json')).mode & 0o777, 0o600);
    } finally {
      panel.close();
      await mcp.close().catch(() => {});
      await browser.stop();
      rmSync(damagedProfile, { recursive: true, force: true });
    }
  });
});
