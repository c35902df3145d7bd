// The identity audit as a hash chain, checked by `sovereign audit verify`
// in a real profile: what the browser wrote holds, after a restart too;
// an entry changed, removed or inserted by hand, and the newest one
// changed or cut off, are each found and named.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { browserBinary, startBrowser, withBrowserLog } from './support/browser.mjs';
import { TEST_NSEC, TEST_NPUB, callJson, connectMcp } from './support/mcp.mjs';
import { run } from './support/run.mjs';
import { waitFor } from './support/wait.mjs';

const CLI = path.join(path.dirname(browserBinary()), 'sovereign');

describe('the identity audit\'s hash chain', { timeout: 240_000 }, () => {
  let dir;
  let profile;
  let browser;
  const start = () => startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile] });
  const logged = (fn) => withBrowserLog(() => browser, fn);
  const file = () => path.join(profile, 'audit.jsonl');
  const lines = () => readFileSync(file(), 'utf8').trimEnd().split('\n');
  const verify = () => run(CLI, ['audit', 'verify', '--profile', profile]);

  /** Logs in and out `times` times: two entries each, written before the calls answer. */
  async function work(times) {
    const mcp = await connectMcp(browser, { name: 'audited-agent' });
    try {
      for (let i = 0; i < times; i += 1) {
        await callJson(mcp, 'login', { method: i % 2 ? 'readonly' : 'local', ...(i % 2 ? { npub: TEST_NPUB } : { nsec: TEST_NSEC }) });
        await callJson(mcp, 'logout');
      }
    } finally {
      await mcp.close().catch(() => {});
    }
  }

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-audit-chain-'));
    profile = path.join(dir, 'profile');
    browser = await start();
  }, { timeout: 90_000 });

  after(async () => {
    await browser?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('what the browser wrote holds, and goes on holding after a restart', { timeout: 90_000 }, logged(async () => {
    await work(2);
    await waitFor(() => lines().length === 4, 'four entries in the file');
    const entries = lines().map((l) => JSON.parse(l));
    assert.deepEqual(entries.map((e) => e.seq), [1, 2, 3, 4]);
    assert.deepEqual(entries.map((e) => e.action), ['login', 'logout', 'login', 'logout']);
    assert.equal(entries[0].prev, '0'.repeat(64));
    let checked = await verify();
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /entries 1 to 4, every link holds/);

    await browser.stop();
    browser = await start();
    await work(1);
    await waitFor(() => lines().length === 6, 'six entries in the file');
    checked = await verify();
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /entries 1 to 6, every link holds; 2 signed by their identity, each signature good/);
    // A local key's login is signed by it; the logouts and a read-only login cannot be.
    assert.deepEqual(lines().map((l) => 'sig' in JSON.parse(l)), [true, false, false, false, true, false]);
  }));

  it('an entry changed, removed or inserted by hand is found and named', { timeout: 60_000 }, logged(async () => {
    // The browser is stopped: nothing writes while the file is edited.
    await browser.stop();
    browser = null;
    const kept = readFileSync(file(), 'utf8');
    const original = lines();
    const tamper = async (edited, why) => {
      writeFileSync(file(), `${edited.join('\n')}\n`);
      const checked = await verify();
      writeFileSync(file(), kept);
      assert.equal(checked.code, 1, `${why}: ${checked.stdout}${checked.stderr}`);
      return checked.stderr;
    };
    const changed = [...original];
    changed[2] = changed[2].replace('"action":"login"', '"action":"logout"');
    assert.match(await tamper(changed, 'changed'), /entry 3 was changed \(entry 4 was linked to another\)/);
    const removed = original.filter((_, i) => i !== 1);
    assert.match(await tamper(removed, 'removed'), /entries 2 to 2 were removed/);
    const inserted = [...original.slice(0, 4), original[1], ...original.slice(4)];
    assert.match(await tamper(inserted, 'inserted'), /an entry was inserted at line 5 of audit\.jsonl \(it says 2, after entry 4\)/);
    const newest = [...original];
    newest[5] = newest[5].replace('"allowed":true', '"allowed":false');
    assert.match(await tamper(newest, 'the newest changed'), /the newest entry, 6, was changed/);
    assert.match(await tamper(original.slice(0, 4), 'the end cut'), /entries 5 to 6 were removed from the end/);
    // Changed, with every link and the head written again: the chain holds, the signature does not.
    const sha = (text) => createHash('sha256').update(text).digest('hex');
    const rewritten = [original[0].replace('"decided":"called"', '"decided":"person"')];
    assert.notEqual(rewritten[0], original[0], 'the signed entry was changed');
    for (const line of original.slice(1)) {
      const entry = JSON.parse(line);
      rewritten.push(line.replace(entry.prev, sha(rewritten.at(-1))));
    }
    const head = path.join(profile, 'audit.head.json');
    const keptHead = readFileSync(head, 'utf8');
    writeFileSync(head, JSON.stringify({ seq: 6, hash: sha(rewritten[5]) }));
    const forged = await tamper(rewritten, 'rewritten');
    writeFileSync(head, keptHead);
    assert.match(forged, /entry 1 does not carry a signature of its identity npub1\w+: it was changed or forged/);
    const untouched = await verify();
    assert.equal(untouched.code, 0, untouched.stderr);
    // And the command says how it is used.
    const usage = await run(CLI, ['audit', 'check']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: sovereign audit verify/);
  }));
});
