// Replies that come back from the page whatever they hold: text with half a
// surrogate pair (a page's own, or where a long name is cut), and replies of
// megabytes. Each once failed on its way back as "the page did not answer".
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';

describe('replies from the page', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;

  it('a name cut at an emoji and a page\'s half character come back, the half as U+FFFD', logged(async () => {
    await call('open', { url: suite.fixtures.url('/surrogates.html') });
    const snapshot = await callText(suite.mcp, 'snapshot', { interactive: false });
    assert.ok(snapshot.includes(`button "${'a'.repeat(98)}…"`), snapshot);
    assert.ok(snapshot.includes('x\ufffdy'), snapshot);
    assert.equal((await callText(suite.mcp, 'get_text', { selector: '#half' })).trim(), 'x\ufffdy');
    assert.equal((await call('eval', { script: "document.getElementById('half').textContent" })).value, 'x\ufffdy');
  }));

  it('replies of megabytes arrive whole: eval, get_text', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('/surrogates.html') });
    const big = await call('eval', { script: "'\u{1F389}'.repeat(600000)" });
    assert.equal(big.value.length, 1_200_000, 'an eval of 2.4 MB of emoji');
    await call('eval', { script: "document.getElementById('big').textContent = 'line of text 0123456789\\n'.repeat(120000); true" });
    const text = await callText(suite.mcp, 'get_text', { selector: '#big' });
    assert.ok(text.length >= 2_800_000, `get_text gave ${text.length} characters`);
  }));

  it('a snapshot of 20,000 controls comes back whole up to the documented maximum; above it a clear error', { timeout: 60_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('/surrogates.html') });
    await call('eval', { script: "for (let i = 0; i < 20000; i++) { const b = document.createElement('button'); b.textContent = 'Control ' + i; document.body.append(b); } true" });
    const cut = await callText(suite.mcp, 'snapshot', {});
    assert.match(cut, /more lines, \d+ refs: snapshot \{after: "e\d+"\} goes on/);
    const whole = await callText(suite.mcp, 'snapshot', { max_chars: 4_000_000 });
    assert.doesNotMatch(whole, /more lines|truncated/);
    assert.ok(whole.includes('button "Control 19999"'), whole.slice(-300));
    assert.ok(whole.length > 500_000, `${whole.length} characters`);
    const refused = await callError(suite.mcp, 'snapshot', { max_chars: 4_000_001 }, 'INVALID_PARAMS');
    assert.match(refused, /max_chars: 1 to 4000000/);
  }));
});
