// Snapshot options: diff against this session's previous snapshot, depth,
// size caps with an explicit marker, and a scope selector.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { callJson, callText } from './support/mcp.mjs';

describe('snapshot options', { timeout: 180_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const snap = (args = {}) => callText(mcp, 'snapshot', args);

  let session;
  before(async () => {
    session = await startLoggedIn();
    ({ fixtures, browser, mcp } = session);
  }, { timeout: 90_000 });

  after(async () => { await session?.stop(); });

  test('diff shows only what changed since the previous snapshot', async () => {
    await call('open', { url: fixtures.url('dynamic.html') });
    const full = await snap();
    assert.match(full, /e\d+ button "Doomed"/);
    await call('click', { selector: '#remove' });
    const changes = await snap({ diff: true });
    assert.match(changes, /changes since the previous snapshot: 0 added, 1 removed/);
    assert.match(changes, /^- e\d+ button "Doomed"$/m);
    assert.ok(!changes.includes('Add later'), 'unchanged lines are left out');
    const changed = changes.split('\n').filter((l) => /^[+-] /.test(l));
    assert.equal(changed.length, 1, `one changed line, got: ${changes}`);
    assert.ok(!/^(url|title): /m.test(changes), `the address and title, unchanged, are not said again: ${changes}`);
    assert.match(await snap({ diff: true }), /no changes since the previous snapshot/);
  });

  test('diff says the address and title when the page changed them in place', async () => {
    await call('open', { url: fixtures.url('dynamic.html') });
    await snap();
    await call('eval', { script: "history.pushState({}, '', '?moved'); document.title = 'Moved'" });
    const changes = await snap({ diff: true });
    assert.match(changes, /^\+ url: .*dynamic\.html\?moved$/m, changes);
    assert.match(changes, /^- url: .*dynamic\.html$/m, changes);
    assert.match(changes, /^\+ title: Moved$/m, changes);
    assert.ok(!changes.includes('a new document'), 'the same document');
  });

  // Regression: after a navigation, diff listed every line of the old page as removed.
  test('diff after a new document answers with that document\'s snapshot, marked', async () => {
    await call('open', { url: fixtures.url('dynamic.html') });
    await snap();
    await call('open', { url: fixtures.url('form.html') });
    const after = await snap({ diff: true });
    const plain = await snap();
    assert.match(after, /^a new document: its whole snapshot follows$/m);
    assert.ok(!/^[+-] /m.test(after), `no diff lines across documents: ${after}`);
    const body = (text) => text.split('\n').filter((l) => !/^(url|title): /.test(l) && !l.startsWith('a new document'));
    assert.deepEqual(body(after), body(plain), 'the new page\'s whole snapshot');
    // The same address loaded again is a new document too.
    await call('reload');
    assert.match(await snap({ diff: true }), /^a new document: its whole snapshot follows$/m);
    // Within one document, diff is a diff again.
    assert.match(await snap({ diff: true }), /no changes since the previous snapshot/);
  });

  test('depth limits the full tree; selector scopes it; max_chars cuts it visibly', async () => {
    await call('open', { url: fixtures.url('form.html') });
    const deep = await snap({ interactive: false, compact: false });
    const shallow = await snap({ interactive: false, compact: false, depth: 1 });
    assert.ok(shallow.split('\n').length < deep.split('\n').length, 'depth 1 has fewer lines');
    const scoped = await snap({ selector: 'form' });
    assert.match(scoped, /textbox "Name"/);
    assert.ok(!/heading/.test(scoped.split('\n').slice(2).join('\n')), 'the scoped tree leaves the heading out');
    const cut = await snap({ interactive: false, max_chars: 200 });
    assert.match(cut, /\n\[\.\.\. \d+ more lines, \d+ refs: snapshot \{after: "[^"]+", interactive: false, max_chars: 200\} goes on/);
  });
});
