// What was done in the person's name: every window.nostr use and every
// login, kept with who asked and how it was decided, on disk across a
// restart, and never a secret or a message's text.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nip19 } from 'nostr-tools';
import { startBrowser } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NPUB, TEST_NSEC, callJson, connectMcp } from './support/mcp.mjs';
import { connectPanel } from './support/agent.mjs';
import { siteCalls } from './support/site_calls.mjs';
import { waitFor } from './support/wait.mjs';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const TEST_HEX = Buffer.from(nip19.decode(TEST_NSEC).data).toString('hex');

describe('the identity audit', { timeout: 180_000 }, () => {
  let dir;
  let fixtures;
  before(async () => {
    fixtures = await startFixtureServer();
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-audit-'));
  });
  after(async () => {
    await fixtures?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const start = () => startBrowser({
    baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', path.join(dir, 'profile')],
  });

  it('keeps a page\'s signature, an agent\'s and a refused one, each attributed, and no secret', async () => {
    let browser = await start();
    const panel = await connectPanel(browser);
    const mcp = await connectMcp(browser, { name: 'audit-agent' });
    const app = fixtures.url('/nostr-app.html');
    /** The person answers the next prompt that `match` picks. */
    const answer = async (match, allow) => {
      const prompt = await waitFor(async () => (await panel.call('nostr_permissions', {})).result.prompts.find(match),
        'a window.nostr prompt');
      const reply = await panel.call('nostr_prompt_answer', { id: prompt.id, allow, remember: false });
      assert.equal(reply.ok, true, JSON.stringify(reply.error));
    };
    try {
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });

      // The site signs on its own once the test lets it (a held request),
      // after the agent's call has ended: no agent call runs then.
      const site = siteCalls(mcp, app);
      await site.start("fetch('/hold?name=site-signs').then(() => window.nostr.signEvent({ kind: 1, content: 'the site says hi', tags: [], created_at: 1700000000 }))");
      fixtures.release('site-signs');
      await answer((p) => p.kind === 1 && p.content === 'the site says hi', true);
      const bySite = (await site.result()).value;
      assert.equal(bySite.content, 'the site says hi');

      // The agent signs with its own script in a page of the site.
      await callJson(mcp, 'tab_new', { url: app });
      const byAgent = callJson(mcp, 'eval', {
        script: "return await window.nostr.signEvent({ kind: 1, content: 'the agent says hi', tags: [], created_at: 1700000001 })",
      });
      await answer((p) => p.content === 'the agent says hi', true);
      const agentEvent = (await byAgent).value;

      // The person refuses a reaction.
      await callJson(mcp, 'tab_new', {});
      const refused = siteCalls(mcp, app);
      await refused.start("fetch('/hold?name=site-reacts').then(() => window.nostr.signEvent({ kind: 7, content: '+', tags: [], created_at: 1700000002 }))");
      fixtures.release('site-reacts');
      await answer((p) => p.kind === 7, false);
      assert.equal((await refused.result()).ok, false);

      const uses = async () => (await panel.call('audit_log', {})).result.uses;
      const signs = (await uses()).filter((u) => u.action === 'sign');
      assert.equal(signs.length, 3, JSON.stringify(signs));
      const [site1, agent1, refused1] = signs;
      const origin = new URL(app).origin;
      assert.deepEqual(
        { identity: site1.identity, origin: site1.origin, agent: site1.agent, decided: site1.decided, allowed: site1.allowed },
        { identity: TEST_NPUB, origin, agent: undefined, decided: 'person', allowed: true });
      assert.deepEqual(site1.detail, {
        kind: 1, created_at: 1700000000, content_sha256: sha256('the site says hi'), content_chars: 16, id: bySite.id,
      });
      assert.equal(agent1.agent.client, 'audit-agent', 'the agent\'s own script is attributed to it');
      assert.ok(agent1.agent.session, 'with its session: its eval was running');
      assert.equal(agent1.detail.id, agentEvent.id);
      assert.deepEqual([refused1.allowed, refused1.decided, refused1.detail.kind], [false, 'person', 7]);
      assert.match(refused1.error, /denied/);

      // The login, by the agent.
      const login = (await uses()).find((u) => u.action === 'login');
      assert.deepEqual([login.identity, login.decided, login.agent.client, login.detail.method],
        [TEST_NPUB, 'called', 'audit-agent', 'local']);
    } finally {
      panel.close();
      await mcp.close();
      await browser.stop();
    }

    // On disk, owner-only, without a secret or a message's text.
    const file = path.join(dir, 'profile', 'audit.jsonl');
    const text = readFileSync(file, 'utf8');
    for (const secret of [TEST_NSEC, TEST_HEX, 'the site says hi', 'the agent says hi']) {
      assert.ok(!text.includes(secret), `${secret.slice(0, 12)}… is not in the audit`);
    }

    // After a restart the panel still lists them, and the person can clear them.
    browser = await start();
    const again = await connectPanel(browser);
    try {
      const kept = (await again.call('audit_log', {})).result.uses;
      assert.equal(kept.filter((u) => u.action === 'sign').length, 3);
      assert.equal((await again.call('audit_clear', {})).ok, true);
      assert.deepEqual((await again.call('audit_log', {})).result.uses, []);
      // An agent may not read or clear it.
      const mcp2 = await connectMcp(browser);
      const refusedRead = await mcp2.callTool('audit_log', {});
      assert.equal(refusedRead.isError, true);
      await mcp2.close();
    } finally {
      again.close();
      await browser.stop();
    }
  });
});
