// The find tools: each finds an element a person would point at, and its
// ref drives a click or a fill; no match and ambiguous matches say so.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { callError, callJson, callText } from './support/mcp.mjs';

describe('find tools', { timeout: 180_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const out = async () => (await callText(mcp, 'get_text', { selector: '#out' })).trim();

  let session;
  before(async () => {
    session = await startLoggedIn();
    ({ fixtures, browser, mcp } = session);
    await call('open', { url: fixtures.url('find.html') });
  }, { timeout: 90_000 });

  after(async () => { await session?.stop(); });

  test('find_role with a name, then a click by its ref', async () => {
    const save = await call('find_role', { role: 'button', name: 'save' });
    assert.equal(save.role, 'button');
    assert.equal(save.name, 'Save');
    assert.equal(save.selector, '#save');
    await call('click', { ref: save.ref });
    assert.equal(await out(), 'saved');
    // The same element keeps its ref, also in a snapshot.
    assert.equal((await call('find_role', { role: 'button', name: 'Save', exact: true })).ref, save.ref);
    assert.match(await callText(mcp, 'snapshot'), new RegExp(`^${save.ref} button "Save"`, 'm'));
  });

  test('find_label and find_placeholder, then a fill', async () => {
    const user = await call('find_label', { label: 'user name' });
    assert.equal(user.role, 'textbox');
    assert.equal((await call('fill', { ref: user.ref, value: 'alice' })).value, 'alice');
    const city = await call('find_label', { label: 'City of birth' });
    assert.equal(city.selector, '#city');
    const byPlaceholder = await call('find_placeholder', { placeholder: 'alice' });
    assert.equal(byPlaceholder.ref, user.ref);
  });

  test('find_text, find_alt, find_title, find_testid', async () => {
    const promo = await call('find_text', { text: 'spring promotion' });
    assert.equal(promo.selector, '[data-testid="promo"]');
    await call('click', { ref: promo.ref });
    assert.equal(await out(), 'promo clicked');
    assert.equal((await call('find_testid', { testid: 'promo' })).ref, promo.ref);
    assert.equal((await call('find_alt', { alt: 'logo' })).role, 'img');
    assert.equal((await call('find_title', { title: 'Help for' })).selector, '#help');
  });

  test('find_first, find_last, find_nth', async () => {
    const first = await call('find_first', { selector: 'li.item' });
    const last = await call('find_last', { selector: 'li.item' });
    const second = await call('find_nth', { selector: 'li.item', n: 1 });
    assert.equal(first.count, 3);
    assert.equal((await callText(mcp, 'get_text', { ref: first.ref })).trim(), 'one');
    assert.equal((await callText(mcp, 'get_text', { ref: second.ref })).trim(), 'two');
    assert.equal((await callText(mcp, 'get_text', { ref: last.ref })).trim(), 'three');
    assert.match(await callError(mcp, 'find_nth', { selector: 'li.item', n: 5 }, 'ELEMENT_NOT_FOUND'), /only 3 elements/);
  });

  test('find_first, find_last, find_nth count every match in document order, and say which are visible', async () => {
    const html = async (found) => (await callText(mcp, 'get_html', { ref: found.ref })).trim();
    const first = await call('find_first', { selector: '#steps li' });
    assert.deepEqual([await html(first), first.visible, first.count], ['Step zero', false, 3]);
    const second = await call('find_nth', { selector: '#steps li', n: 1 });
    assert.deepEqual([await html(second), second.visible, second.count], ['Step one', true, 3]);
    const last = await call('find_last', { selector: '#steps li' });
    assert.deepEqual([await html(last), last.visible], ['Step two', false]);
    assert.match(await callError(mcp, 'find_nth', { selector: '#steps li', n: 3 }, 'ELEMENT_NOT_FOUND'), /only 3 elements/);
  });

  test('no match and ambiguous matches are clear errors', async () => {
    assert.match(await callError(mcp, 'find_role', { role: 'button', name: 'Delete everything' }, 'ELEMENT_NOT_FOUND'), /nothing on the page matches/);
    const many = await callError(mcp, 'find_text', { text: 'Read more' }, 'INVALID_PARAMS');
    assert.match(many, /^2 elements match text "Read more": link "Read more"/);
    assert.match(await callError(mcp, 'find_first', { selector: 'li[' }, 'INVALID_PARAMS'), /invalid CSS selector/);
    assert.match(await callError(mcp, 'find_role', {}, 'INVALID_PARAMS'), /role/);
  });
});
