// The person's vault of sites' credentials, through the real browser: the
// person makes, fills, locks and opens it over the panel's connection;
// agents list its names and origins, never a value, and cannot reach the
// vault's own tools; the file in the profile shows nothing of what it
// holds, is the person's alone, and opens again after a restart.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { agentCall, agentError, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, callError, callJson, connectMcp } from './support/mcp.mjs';

const PASSWORD = 'a vault password';
const VALUES = ['ada-lovelace', 'correct-horse-battery-staple', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'];

describe('the vault', { timeout: 300_000 }, () => {
  const profile = mkdtempSync(path.join(tmpdir(), 'sovereign-vault-'));
  let browser;
  let mcp;
  let panel;
  const test = (name, fn) => it(name, { timeout: 90_000 }, withBrowserLog(() => browser, fn));
  const start = async () => {
    browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--profile', profile, '--port', '0', '--log-level', 'debug'] });
    mcp = await connectMcp(browser, { name: 'vault-agent' });
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    panel = await connectPanel(browser);
  };
  const stop = async () => {
    await mcp?.close().catch(() => {});
    await panel?.close();
    await browser?.stop();
  };
  /** No value of the entry anywhere in `text`. */
  const holdsNoValue = (text, where) => {
    for (const value of VALUES) assert.ok(!text.includes(value), `${where} holds ${value}`);
  };

  before(start, { timeout: 90_000 });
  after(async () => {
    await stop();
    rmSync(profile, { recursive: true, force: true });
  });

  test('before the person makes it, agents learn only that it is not open', async () => {
    const listed = await callJson(mcp, 'secrets_list');
    assert.equal(listed.open, false);
    assert.deepEqual(listed.entries, []);
    assert.match(listed.note, /ask the person/);
  });

  test('its own tools are the person\'s: an agent gets UNKNOWN_TOOL', async () => {
    for (const [tool, args] of [
      ['vault_create', { password: PASSWORD }],
      ['vault_unlock', { password: PASSWORD }],
      ['vault_put', { name: 'x', origins: ['https://x.example'], password: 'p' }],
      ['vault_status', {}],
      ['vault_remove', { name: 'x' }],
      ['vault_lock', {}],
    ]) {
      await callError(mcp, tool, args, 'UNKNOWN_TOOL');
    }
  });

  test('the person fills it; agents see names, exact origins and fields, never values', async () => {
    const made = await agentCall(panel, 'vault_create', { password: PASSWORD });
    assert.deepEqual(made, { open: true, exists: true, entries: [] });
    const status = await agentCall(panel, 'vault_put', {
      name: 'github',
      origins: ['https://github.com/login', 'http://127.0.0.1:8123'],
      user: VALUES[0],
      password: VALUES[1],
      totp: `otpauth://totp/GitHub:ada?secret=${VALUES[2]}&issuer=GitHub`,
    });
    holdsNoValue(JSON.stringify(status), 'the panel\'s answer');
    const listed = await callJson(mcp, 'secrets_list');
    assert.deepEqual(listed, {
      open: true,
      entries: [{ name: 'github', origins: ['https://github.com:443', 'http://127.0.0.1:8123'], fields: ['user', 'password', 'totp'] }],
    });
    const refused = await panel.call('vault_put', { name: 'any', origins: ['http://example.com'], password: 'p' });
    assert.match(agentError(refused, 'INVALID_PARAMS'), /only over https/);
  });

  test('the file is sealed, the person\'s alone, and no value reaches the log', async () => {
    const file = path.join(profile, 'vault.json');
    const text = readFileSync(file, 'utf8');
    holdsNoValue(text, 'the vault file');
    assert.ok(!text.includes('github'), 'the file names its entry');
    assert.equal(statSync(file).mode & 0o077, 0, 'others may read the vault file');
    holdsNoValue(browser.stderr() + browser.stdout(), 'the browser\'s log');
  });

  test('locked, it lists nothing; the wrong password opens nothing', async () => {
    await agentCall(panel, 'vault_lock');
    const listed = await callJson(mcp, 'secrets_list');
    assert.equal(listed.open, false);
    assert.deepEqual(listed.entries, []);
    const wrong = await panel.call('vault_unlock', { password: 'not the password' });
    assert.match(agentError(wrong, 'INVALID_PARAMS'), /not right/);
    assert.equal((await callJson(mcp, 'secrets_list')).open, false);
  });

  test('after a restart it opens with its password and holds what it held', async () => {
    await stop();
    await start();
    assert.equal((await callJson(mcp, 'secrets_list')).open, false, 'a restart opens the vault');
    const opened = await agentCall(panel, 'vault_unlock', { password: PASSWORD });
    assert.equal(opened.entries[0].name, 'github');
    await agentCall(panel, 'vault_remove', { name: 'github' });
    assert.deepEqual((await callJson(mcp, 'secrets_list')).entries, []);
  });
});
