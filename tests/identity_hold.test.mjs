// While the person holds the browser (they paused the agents, or work in a
// tab an agent handed them with ask_person), logging in, logging out and
// switching identity are theirs: agents get PAUSED over MCP, /agent and
// inside a batch, and the identity stays; the person's panel still can.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { agentCall, agentError, connectAgent, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, TEST_NPUB, callError, callJson, connectMcp } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

const OTHER_NPUB = 'npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h';
const CHANGES = [
  ['login', { method: 'readonly', npub: OTHER_NPUB }],
  ['switch_identity', { method: 'readonly', npub: OTHER_NPUB }],
  ['logout', {}],
];

describe('the identity while the person holds the browser', { timeout: 180_000 }, () => {
  let session;
  let browser;
  let mcp; // an agent
  let other; // another agent
  let script; // an /agent client
  let panel; // the person
  let lastState;
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));

  /** Every identity change, by each agent and in a batch: all PAUSED, saying `why`. */
  async function agentsAreRefused(why) {
    for (const [tool, args] of CHANGES) {
      for (const client of [mcp, other]) {
        assert.match(await callError(client, tool, args, 'PAUSED'), why, `${tool} over MCP`);
      }
      assert.match(agentError(await script.call(tool, args), 'PAUSED', `${tool} over /agent`), why);
      const batch = await callJson(other, 'batch', { commands: [{ tool, params: args }] });
      assert.equal(batch.results[0].error?.code, 'PAUSED', `${tool} in a batch: ${JSON.stringify(batch)}`);
    }
  }

  function pushedAsk(message) {
    while (panel.unmatched.length) {
      const pushed = panel.unmatched.shift();
      if (pushed.event === 'state') lastState = pushed.data;
    }
    return lastState?.asks?.find((a) => a.message === message);
  }

  before(async () => {
    session = await startLoggedIn();
    ({ browser, mcp } = session);
    other = await connectMcp(browser, { name: 'other-agent' });
    script = await connectAgent(browser);
    panel = await connectPanel(browser);
  }, { timeout: 90_000 });

  after(async () => {
    script?.close();
    await panel?.close();
    await other?.close().catch(() => {});
    await session?.stop();
  });

  // Regression: login, logout and switch_identity were ungated: an agent
  // changed the identity while the person had paused the agents.
  test('paused agents cannot log in, log out or switch; the person can', async () => {
    const before = await callJson(mcp, 'login_status');
    assert.equal(before.npub, TEST_NPUB);
    await agentCall(panel, 'agents_pause', { paused: true });
    try {
      await agentsAreRefused(/paused the agents; logging in, logging out and switching identity are theirs/);
      assert.deepEqual(await callJson(mcp, 'login_status'), before, 'the identity stays');
      // The person's own calls go through.
      assert.equal((await agentCall(panel, 'switch_identity', { method: 'readonly', npub: OTHER_NPUB })).npub, OTHER_NPUB);
      assert.equal((await agentCall(panel, 'login', { method: 'local', nsec: TEST_NSEC })).npub, TEST_NPUB);
    } finally {
      await agentCall(panel, 'agents_pause', { paused: false });
    }
    assert.equal((await callJson(other, 'switch_identity', { method: 'local', nsec: TEST_NSEC })).npub, TEST_NPUB,
      'after the resume, agents may again');
  });

  // Regression: the same while the person worked in a tab an agent handed them.
  test('while the person handles an agent\'s request, agents cannot log in, log out or switch', async () => {
    const before = await callJson(mcp, 'login_status');
    await callJson(mcp, 'tab_new', { url: 'about:blank' });
    const asked = callJson(mcp, 'ask_person', { message: 'Sign in to the bank, please', timeout: 60_000 });
    const ask = await waitFor(() => pushedAsk('Sign in to the bank, please'), 'the request in the panel\'s state');
    try {
      await agentsAreRefused(/handling a tab for an agent \("Sign in to the bank, please"\); logging in, logging out and switching identity wait/);
      assert.deepEqual(await callJson(other, 'login_status'), before, 'the identity stays');
    } finally {
      await agentCall(panel, 'ask_answer', { id: ask.id, answer: 'done' });
    }
    assert.equal((await asked).answer, 'done');
    assert.equal((await callJson(other, 'logout')).logged_in, false, 'once answered, agents may again');
    await callJson(other, 'login', { method: 'local', nsec: TEST_NSEC });
  });
});
