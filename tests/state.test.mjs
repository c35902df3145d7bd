// Element state: get_value, get_count, get_box, get_styles, is_visible,
// is_enabled, is_checked, checked against what the fixture page shows.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowserLog } from './support/browser.mjs';
import { startLoggedIn } from './support/session.mjs';
import { callError, callJson, callText } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';

describe('element state', { timeout: 120_000 }, () => {
  let session;
  let mcp;
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const ask = (tool, id) => call(tool, { selector: `#${id}` });

  before(async () => {
    session = await startLoggedIn();
    ({ mcp } = session);
    await call('open', { url: session.fixtures.url('state.html') });
  }, { timeout: 90_000 });
  after(async () => { await session?.stop(); });
  const logged = (fn) => withBrowserLog(() => session.browser, fn);

  it('is_visible follows real visibility and says why not', { timeout: 30_000 }, logged(async () => {
    assert.deepEqual(await ask('is_visible', 'shown'), { visible: true });
    const reasons = {
      gone: /display: none/,
      'in-hidden': /hidden attribute/,
      ghost: /visibility: hidden/,
      faded: /opacity: 0/,
      clear: /opacity: 0/,
      flat: /zero size/,
      away: /off-screen/,
      cut: /clipped by div#box/,
      sr: /clipped to nothing/,
      'inert-button': /inert/,
      nothing: /no element matches/,
    };
    for (const [id, reason] of Object.entries(reasons)) {
      const seen = await ask('is_visible', id);
      assert.equal(seen.visible, false, id);
      assert.match(seen.reason, reason, id);
    }
    await call('eval', { script: "document.getElementById('gone').style.display = 'block'" });
    assert.deepEqual(await ask('is_visible', 'gone'), { visible: true }, 'shown later');
    await callError(mcp, 'is_visible', { ref: '@e99999' }, 'ELEMENT_NOT_FOUND');
  }));

  it('get_value reads fields, selects and checkboxes, and masks passwords', { timeout: 30_000 }, logged(async () => {
    const snap = await callText(mcp, 'snapshot');
    assert.deepEqual(await call('get_value', { ref: refOf(snap, 'textbox', 'Name') }), { value: 'Ada' });
    assert.deepEqual(await ask('get_value', 'secret'), { value: '•••••••', masked: true, length: 7 });
    assert.deepEqual(await ask('get_value', 'notes'), { value: 'line one' });
    assert.deepEqual(await ask('get_value', 'pick'), { value: 'b', text: 'Banana' });
    assert.deepEqual(await ask('get_value', 'many'), { value: ['x', 'z'], text: ['X', 'Z'] });
    assert.deepEqual(await ask('get_value', 'yes'), { value: 'on', checked: true });
    await call('fill', { selector: '#name', value: 'Grace' });
    assert.deepEqual(await ask('get_value', 'name'), { value: 'Grace' });
    await callError(mcp, 'get_value', { selector: '#placed' }, 'INVALID_PARAMS');
  }));

  it('is_enabled and is_checked', { timeout: 30_000 }, logged(async () => {
    assert.deepEqual(await ask('is_enabled', 'enabled'), { enabled: true });
    assert.deepEqual(await ask('is_enabled', 'disabled'), { enabled: false, reason: 'disabled attribute' });
    assert.deepEqual(await ask('is_enabled', 'fenced'), { enabled: false, reason: 'inside a disabled fieldset' });
    assert.deepEqual(await ask('is_enabled', 'aria-off'), { enabled: false, reason: 'aria-disabled' });
    assert.deepEqual(await ask('is_enabled', 'inert-button'), { enabled: false, reason: 'inert' });
    assert.deepEqual(await ask('is_checked', 'yes'), { checked: true });
    assert.deepEqual(await ask('is_checked', 'no'), { checked: false });
    assert.deepEqual(await ask('is_checked', 'some'), { checked: 'mixed' });
    assert.deepEqual(await ask('is_checked', 'toggle'), { checked: true });
    await callError(mcp, 'is_checked', { selector: '#name' }, 'INVALID_PARAMS');
  }));

  it('get_box in viewport and page pixels, get_styles, get_count', { timeout: 30_000 }, logged(async () => {
    await call('eval', { script: 'scrollTo(0, 0)' });
    assert.deepEqual(await ask('get_box', 'placed'),
      { x: 50, y: 100, width: 120, height: 40, page_x: 50, page_y: 100, in_viewport: true });
    await call('eval', { script: 'scrollTo(0, 60)' });
    const scrolled = await ask('get_box', 'placed');
    assert.deepEqual([scrolled.y, scrolled.page_y], [40, 100]);
    const far = await ask('get_box', 'tall');
    assert.equal(far.in_viewport, false);
    const picked = await call('get_styles', { selector: '#placed', properties: ['color', 'background-color', 'width'] });
    assert.deepEqual(picked, { styles: { color: 'rgb(255, 0, 0)', 'background-color': 'rgb(0, 0, 255)', width: '120px' } });
    const defaults = await call('get_styles', { selector: '#placed' });
    assert.equal(defaults.styles.position, 'absolute');
    assert.equal(defaults.styles.display, 'block');
    assert.deepEqual(await call('get_count', { selector: '.item' }), { count: 3 });
    assert.deepEqual(await call('get_count', { selector: '.none' }), { count: 0 });
    await callError(mcp, 'get_count', { selector: '!!' }, 'INVALID_PARAMS');
    await callError(mcp, 'get_styles', { selector: '#placed', properties: 'color' }, 'INVALID_PARAMS');
  }));
});
