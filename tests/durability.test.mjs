// The browser killed (SIGKILL) in the middle of agents' work loses nothing
// it had written: the person's remembered identity, their remembered
// window.nostr decision, a kept context's cookies and storage, and the
// recording up to the last step. A second start on the same profile checks
// each, as the person and the agents would.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBrowser } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NPUB, TEST_NSEC, TEST_PUBKEY, callJson, connectMcp } from './support/mcp.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { siteCalls } from './support/site_calls.mjs';
import { descendants } from './support/procs.mjs';
import { waitFor } from './support/wait.mjs';

const PASSWORD = 'the person\'s own password';

describe('durability', { timeout: 240_000 }, () => {
  let fixtures;
  let profile;
  before(async () => {
    fixtures = await startFixtureServer();
    profile = mkdtempSync(path.join(tmpdir(), 'sovereign-durable-'));
  });
  after(async () => {
    await fixtures?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const start = () => startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile] });

  it('a SIGKILL mid-work loses nothing written before it', { timeout: 180_000 }, async () => {
    const origin = new URL(fixtures.url('/')).origin;
    let steps;
    let recorded;
    let first = await start();
    try {
      const panel = await connectPanel(first);
      const agent = await connectMcp(first, { name: 'durable-agent' });
      // The person logs in and remembers the key under their password.
      const login = await agentCall(panel, 'login', { method: 'local', nsec: TEST_NSEC, remember: true, password: PASSWORD });
      assert.equal(login.remembered, true);
      // A site asks for the public key; the person allows it for good.
      const site = siteCalls(agent, fixtures.url('/nostr-app.html'));
      await site.start('window.nostr.getPublicKey()');
      const prompt = await waitFor(async () => (await agentCall(panel, 'nostr_permissions')).prompts
        .find((p) => p.method === 'getPublicKey'), 'the site\'s prompt');
      await agentCall(panel, 'nostr_prompt_answer', { id: prompt.id, allow: true, remember: true });
      assert.equal((await site.result()).value, TEST_PUBKEY);
      // An agent keeps a context and stores in it.
      await callJson(agent, 'context_new', { name: 'kept', ephemeral: false });
      await callJson(agent, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(agent, 'open', { url: fixtures.url('/context-store.html') });
      await callJson(agent, 'eval', { script: 'storeAll("durable")' });
      const stored = (await callJson(agent, 'eval', { script: 'readAll()' })).value;
      assert.deepEqual([stored.cookie, stored.local, stored.idb], ['durable', 'durable', 'durable']);
      await callJson(agent, 'get_title');
      // What the recording holds before the kill.
      const listed = await waitFor(async () => (await agentCall(panel, 'record_sessions')).sessions
        .find((s) => s.client === 'durable-agent' && s.on_disk && s.steps >= 7), 'the agent\'s steps on disk');
      recorded = listed.session;
      steps = (await agentCall(panel, 'record_steps', { session: recorded })).steps.map((s) => s.tool);
      // The last write comes just before the kill.
      await callJson(agent, 'eval', { script: 'storeAll("last")' });
      // Killed while a call waits on the page.
      const waiting = agent.callTool('wait_for_text', { text: 'never on this page', timeout: 60_000 }).catch(() => null);
      await waitFor(async () => (await agentCall(panel, 'record_sessions')).sessions.length >= 1, 'the wait to run');
      const helpers = descendants(first.pid);
      first.proc.kill('SIGKILL');
      const ended = await first.exited;
      assert.equal(ended.signal, 'SIGKILL');
      await waiting;
      panel.close();
      await agent.close().catch(() => {});
      // Its display and WebKit's processes do not outlive it.
      await waitFor(() => helpers.every((p) => !alive(p.pid)), 'the browser\'s helper processes to end', 20_000);
    } finally {
      await first.stop();
    }

    const second = await start();
    try {
      const panel = await connectPanel(second);
      const agent = await connectMcp(second, { name: 'after-restart' });
      // The identity is remembered, and its password opens it.
      const identities = await agentCall(panel, 'identity_list');
      assert.ok(JSON.stringify(identities).includes(TEST_NPUB), JSON.stringify(identities));
      const back = await agentCall(panel, 'login', { method: 'local', remembered: TEST_NPUB, password: PASSWORD });
      assert.equal(back.pubkey, TEST_PUBKEY);
      // The site's decision stands: asked no more.
      const decisions = (await agentCall(panel, 'nostr_permissions')).permissions;
      assert.ok(decisions.some((d) => d.origin === origin && d.capability === 'public_key' && d.context === 'default'),
        JSON.stringify(decisions));
      const site = siteCalls(agent, fixtures.url('/nostr-app.html'));
      await callJson(agent, 'tab_new', {});
      assert.equal((await site.call('window.nostr.getPublicKey()')).value, TEST_PUBKEY);
      // The kept context's cookies and storage are there again.
      await callJson(agent, 'context_new', { name: 'kept', ephemeral: false });
      await callJson(agent, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(agent, 'open', { url: fixtures.url('/context-store.html') });
      const kept = (await callJson(agent, 'eval', { script: 'readAll()' })).value;
      assert.deepEqual([kept.cookie, kept.local, kept.idb], ['last', 'last', 'last']);
      // The recording holds every step up to the kill.
      const again = (await agentCall(panel, 'record_sessions')).sessions.find((s) => s.session === recorded);
      assert.ok(again, 'the killed run\'s session is listed');
      const read = (await agentCall(panel, 'record_steps', { session: recorded })).steps.map((s) => s.tool);
      assert.deepEqual(read.slice(0, steps.length), steps, 'every step recorded before the kill');
      panel.close();
      await agent.close().catch(() => {});
    } finally {
      await second.stop();
    }
  });
});

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
