// Extended interaction: dblclick, select, check/uncheck, scroll_into_view,
// keyboard_type, insert_text, keydown/keyup, drag, close_all. Each proves its
// effect the way a user would see it on the page, and each refuses what a
// user could not do (hidden, disabled, covered, stale).
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';

describe('extended interaction', { timeout: 180_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  const text = async (selector) => (await callText(mcp, 'get_text', { selector })).trim();
  const page = (script) => call('eval', { script }).then((r) => r.value);
  const open = () => call('open', { url: suite.fixtures.url('interact.html') });

  it('a click on an element that replaces itself as it takes focus ends on the replacement, as a person\'s does', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('replace-on-focus.html') });
    const snap = await callText(suite.mcp, 'snapshot');
    const ref = /(e\d+) button "Add a block"/.exec(snap)?.[1];
    assert.ok(ref, snap);
    const clicked = await call('click', { ref });
    assert.match(clicked.ended_on ?? '', /paragraph|Block|p#block/i, JSON.stringify(clicked));
    // The page saw the press, the focus and the release, as a person's click gives it.
    const log = (await text('#log')).split(' ');
    assert.deepEqual(log.slice(0, 3), ['pointerdown:add', 'mousedown:add', 'focus:add'], log.join(' '));
    assert.ok(log.includes('pointerup:block') && log.includes('mouseup:block'), log.join(' '));
    // The editor has the focus: typing goes into the new block.
    await call('keyboard_type', { value: 'Hello blocks' });
    assert.equal(await text('#block'), 'Hello blocks');
    // A ref gone before the press is still STALE_REF.
    await callError(suite.mcp, 'click', { ref }, 'STALE_REF');
  }));

  it('a click answers once the requests it started have ended, and says only what changed', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('fetch-menu.html') });
    // A menu that fetches its items, one request after another: they are there at the answer.
    const opened = await call('click', { selector: '#menu' });
    assert.deepEqual(opened, { navigated: false, clicked: true }, 'the address and title, unchanged, are not said again');
    assert.match(await callText(mcp, 'snapshot'), /e\d+ link "Welcome to the site"/);
    // An address moved in place is said.
    const moved = await call('click', { selector: '#move' });
    assert.match(moved.url, /fetch-menu\.html\?moved$/);
    assert.equal(moved.title, 'Moved along');
    // A request that stays open (released only below) holds the answer a bounded while, and is said.
    const watching = await call('click', { selector: '#watch' });
    assert.match(watching.requests_in_flight ?? '', /still in flight after 2000 ms/, JSON.stringify(watching));
    assert.ok(suite.fixtures.held('fetch-menu-watch'));
    suite.fixtures.release('fetch-menu-watch');
    await call('wait_for_text', { text: 'released' });
    // A click that starts nothing answers at once.
    assert.deepEqual(await call('click', { selector: '#nothing' }), { navigated: false, clicked: true });
  }));

  it('fill types into a rich editor through textInput; a submit waits for the page to settle the last change', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('debounced-editor.html') });
    await call('fill', { selector: '#editor', value: 'First draft' });
    await call('fill', { selector: '#editor', value: 'Second draft' });
    assert.equal(await text('#editor'), 'Second draft', 'the editor replaced its text, in its own model');
    await call('fill', { selector: '#title', value: 'Spring Notes' });
    // At once: the editor writes its field 250 ms after its last change, the title its slug 100 ms after.
    await call('click', { selector: '#save' });
    assert.equal(await text('#saved'), 'saved: Second draft (spring-notes)');
    // A change the editor's own script makes after a click counts too.
    await call('click', { selector: '#stamp' });
    await call('wait_for_text', { text: '[stamp]' });
    await call('click', { selector: '#save' });
    assert.equal(await text('#saved'), 'saved: Second draft [stamp] (spring-notes)');
  }));

  it('dblclick sends two trusted clicks and a trusted dblclick', { timeout: 30_000 }, logged(async () => {
    await open();
    const result = await call('dblclick', { selector: '#dbl' });
    assert.equal(result.double_clicked, true);
    assert.equal(await text('#dbl-out'), 'dblclick true after 2 clicks');
    await callError(mcp, 'dblclick', { ref: '@e9999' }, 'ELEMENT_NOT_FOUND');
  }));

  it('select chooses by value or text, several in a multiple select, and fires input and change', { timeout: 30_000 }, logged(async () => {
    await open();
    const snap = await callText(mcp, 'snapshot');
    const one = await call('select', { ref: refOf(snap, 'combobox', 'Country'), value: 'Japan' });
    assert.deepEqual([one.value, one.text], ['jp', 'Japan']);
    const many = await call('select', { selector: '#toppings', value: ['ham', 'Olive'] });
    assert.deepEqual(many.value, ['ham', 'olive']);
    assert.deepEqual(await page("[...document.querySelector('#toppings').selectedOptions].map(o => o.value)"), ['ham', 'olive']);
    assert.equal(await text('#select-log'), 'country:input country:change toppings:input toppings:change');
    assert.match(await callError(mcp, 'select', { selector: '#country', value: 'Mars' }, 'ELEMENT_NOT_FOUND'), /options: "France", "Japan"/);
    await callError(mcp, 'select', { selector: '#country', value: ['fr', 'jp'] }, 'INVALID_PARAMS');
    await callError(mcp, 'select', { selector: '#country', value: 'no' }, 'NOT_INTERACTABLE');
    await callError(mcp, 'select', { selector: '#locked', value: 'Only' }, 'NOT_INTERACTABLE');
    await callError(mcp, 'select', { selector: '#kb', value: 'x' }, 'INVALID_PARAMS');
  }));

  it('fill reports trusted_events: false where it sets the value by script (date, select), as select does; typed text has no flag', { timeout: 30_000 }, logged(async () => {
    await open();
    assert.deepEqual(await call('fill', { selector: '#when', value: '2026-12-01' }), { value: '2026-12-01', trusted_events: false });
    assert.equal(await page("document.querySelector('#when').value"), '2026-12-01');
    const chosen = await call('fill', { selector: '#country', value: 'Japan' });
    assert.deepEqual([chosen.value, chosen.trusted_events], ['jp', false]);
    assert.equal((await call('select', { selector: '#country', value: 'France' })).trusted_events, false, 'the same flag as select');
    assert.deepEqual(await call('fill', { selector: '#nick', value: 'ada' }), { value: 'ada' }, 'typed: trusted, no flag');
    const log = await page('fill_log');
    assert.ok(log.filter((e) => e.startsWith('when:')).length > 0 && log.filter((e) => e.startsWith('when:')).every((e) => e.endsWith(':false')), log.join(' '));
    assert.ok(log.includes('nick:input:true'), log.join(' '));
  }));

  it('fill puts text in as typing does: trusted beforeinput and input, an edit the page cancels changes nothing, an empty value clears, an editable region takes it too', { timeout: 30_000 }, logged(async () => {
    await open();
    await call('fill', { selector: '#nick', value: 'old text' });
    await page('typed_log.length = 0');
    assert.deepEqual(await call('fill', { selector: '#nick', value: 'Ada' }), { value: 'Ada' }, 'the old text replaced');
    assert.deepEqual(await page('typed_log'), ['nick:beforeinput:true:insertText:Ada', 'nick:input:true:insertText:Ada']);
    assert.equal(await page("document.querySelector('#nick').value"), 'Ada');

    assert.deepEqual(await call('fill', { selector: '#nick', value: '' }), { value: '' });
    assert.equal(await page("document.querySelector('#nick').value"), '');

    assert.deepEqual(await call('fill', { selector: '#guarded', value: 'changed' }), { value: 'keep' },
      'the field as the page left it, not the value asked for');
    assert.equal(await page("document.querySelector('#guarded').value"), 'keep');

    await page('typed_log.length = 0');
    assert.deepEqual(await call('fill', { selector: '#editor', value: 'New text' }), { value: 'New text' });
    assert.equal(await text('#editor'), 'New text');
    assert.deepEqual(await page('typed_log'), ['editor:beforeinput:true:insertText:New text', 'editor:input:true:insertText:New text']);
  }));

  it('a select\'s options are a line under it, and select or click chooses one', { timeout: 30_000 }, logged(async () => {
    await call('open', { url: suite.fixtures.url('options.html') });
    const snap = await callText(mcp, 'snapshot');
    const lines = snap.split('\n').map((l) => l.replace(/^(\s*)e\d+ /, '$1'));
    const at = lines.indexOf('combobox "Date range": Last 28 days');
    assert.ok(at > 0, snap);
    assert.equal(lines[at + 1], '  options: "Last 7 days", "Last 28 days", "Last 90 days" [disabled]',
      'the choices under their combobox, the chosen one named by its value; a hidden one left out');
    assert.ok(!snap.includes('Never shown'));
    assert.ok(lines.includes('  group "Europe": "Paris", "Berlin"') && lines.includes('  group "Asia": "Tokyo"'),
      'an optgroup\'s options on its own line');
    assert.ok(lines.includes('  ... 70 more options'), 'a long list is cut at 50, visibly');
    const years = lines.find((l) => l.startsWith('  options: "2026"'));
    assert.ok(years?.includes('"1977"') && !years.includes('"1976"'), years);
    assert.ok(lines.includes('  options: "alpha" [selected], "beta", "gamma"'), 'a list box marks each chosen one');
    assert.ok(lines.includes('  suggestions: "Firefox", "Chromium"'), 'a datalist\'s suggestions');
    assert.ok(lines.includes('option "Oldest"'), 'an ARIA listbox\'s options are elements with refs');
    assert.ok(!/^\s*e\d+ option "Last 7 days"/m.test(snap), 'a native option has no ref: select takes its text');
    // select takes an option's text; a click on the option (by selector) chooses it as from its menu.
    assert.equal((await call('select', { ref: refOf(snap, 'combobox', 'Date range'), value: 'Last 7 days' })).value, '7');
    assert.match(await callText(mcp, 'snapshot'), /e\d+ combobox "Date range": Last 7 days/);
    const chosen = await call('click', { selector: '#zone option:nth-child(2)' });
    assert.deepEqual([chosen.chosen.value, chosen.chosen.text], ['Berlin', 'Berlin']);
    await call('select', { ref: refOf(snap, 'listbox', 'Tags'), value: 'gamma' });
    assert.equal(await text('#log'), 'range=Last 7 days zone=Berlin tags=gamma');
    await callError(mcp, 'click', { selector: '#range option[value="90"]' }, 'NOT_INTERACTABLE');
    await callError(mcp, 'select', { selector: '#zone option', value: 'Tokyo' }, 'INVALID_PARAMS');
    await callError(mcp, 'hover', { selector: '#zone option' }, 'NOT_INTERACTABLE');
  }));

  it('check and uncheck click like a person and verify the result', { timeout: 60_000 }, logged(async () => {
    await open();
    assert.deepEqual(await call('check', { selector: '#news' }), { checked: true, changed: true });
    assert.equal(await text('#check-log'), 'news:true', 'the page saw a trusted click');
    assert.deepEqual(await call('check', { selector: '#news' }), { checked: true, changed: false });
    assert.deepEqual(await call('uncheck', { selector: '#news' }), { checked: false, changed: true });
    assert.equal(await page("document.querySelector('#news').checked"), false);
    // A checkbox styled away is checked through its label.
    await call('check', { selector: '#terms-box' });
    assert.equal(await page("document.querySelector('#terms-box').checked"), true);
    assert.match(await callError(mcp, 'check', { selector: '#off' }, 'NOT_INTERACTABLE'), /disabled/);
    assert.match(await callError(mcp, 'check', { selector: '#covered' }, 'NOT_INTERACTABLE'), /covered by generic \(#cover\)/);
    // What the waits found on the way is said with the failure: hidden,
    // then shown under the cover.
    await page("document.getElementById('cover-wrap').style.display = 'none'; setTimeout(() => { document.getElementById('cover-wrap').style.display = ''; }, 300); true");
    const why = await callError(mcp, 'click', { selector: '#covered', timeout: 1500 }, 'NOT_INTERACTABLE');
    assert.match(why, /^element is covered by generic \(#cover\) \(waited \d+ ms\); close or dismiss that first, or scroll; on the way: \d+ ms hidden \(not displayed, or zero size\), then (.+, then )?\d+ ms covered by generic \(#cover\)$/);
    // A failure after some steps says them, with when each was done.
    assert.match(await callError(mcp, 'check', { selector: '#stubborn' }, 'NOT_INTERACTABLE'),
      /did not check it .*; before that: \d+ ms read it: checked false, then \d+ ms checkbox "Stubborn" ready at \(\d+, \d+\), then \d+ ms clicked$/);
    await call('check', { selector: '#large' });
    assert.equal(await page("document.querySelector('#small').checked"), false);
    await callError(mcp, 'uncheck', { selector: '#large' }, 'INVALID_PARAMS');
    await call('check', { selector: '#wifi' });
    assert.deepEqual(await call('is_checked', { selector: '#wifi' }), { checked: true });
    await callError(mcp, 'check', { selector: '#kb' }, 'INVALID_PARAMS');
  }));

  it('scroll_into_view brings a far element into the viewport', { timeout: 30_000 }, logged(async () => {
    await open();
    assert.equal((await call('get_box', { selector: '#far' })).in_viewport, false);
    const box = await call('scroll_into_view', { selector: '#far' });
    assert.equal(box.in_viewport, true);
    assert.ok(await page('window.scrollY') > 1000);
    await page("document.querySelector('#far').style.display = 'none'");
    await callError(mcp, 'scroll_into_view', { selector: '#far' }, 'NOT_INTERACTABLE');
  }));

  it('keyboard_type, keydown/keyup with held Shift, and insert_text', { timeout: 30_000 }, logged(async () => {
    await open();
    await call('focus', { selector: '#kb' });
    assert.deepEqual((await call('keydown', { key: 'Shift' })).held, ['Shift']);
    const typed = await call('keyboard_type', { value: 'ab' });
    assert.deepEqual([typed.value, typed.focused], ['AB', 'input#kb']);
    assert.deepEqual((await call('keyup', { key: 'Shift' })).held, []);
    assert.equal((await call('keyboard_type', { value: 'c!' })).value, 'ABc!');
    assert.equal(await page("window.keys.join(' ')"), 'Shift:true:true A:true:true B:true:true c:true:false !:true:true');
    // A held modifier applies to clicks too.
    await call('keydown', { key: 'Shift' });
    await call('click', { selector: 'h1' });
    await call('keyup', { key: 'Shift' });
    assert.equal(await text('#key-log'), 'shift-click');
    await call('click', { selector: '#editor' });
    await page("getSelection().collapse(document.querySelector('#editor').firstChild, 5)");
    assert.equal((await call('insert_text', { value: ' more' })).value, 'start more');
    await call('click', { selector: 'h1' });
    await callError(mcp, 'insert_text', { value: 'x' }, 'NOT_INTERACTABLE');
    await callError(mcp, 'keydown', { key: 'NoSuchKey' }, 'INVALID_PARAMS');
  }));

  it('drag drops with HTML drag and drop, and moves mouse-driven sliders', { timeout: 30_000 }, logged(async () => {
    await open();
    const drop = await call('drag', { src_selector: '#item', tgt_selector: '#zone' });
    assert.equal(drop.dragged, true);
    assert.equal(drop.input, 'xtest');
    assert.equal(await text('#drop-log'), 'dropped item true');
    // On the browser's own display every drag takes the real pointer: mouse-driven
    // sliders follow it as well.
    const slide = await call('drag', { src_selector: '#knob', tgt_selector: '#track' });
    assert.equal(slide.input, 'xtest');
    assert.ok(Number(await text('#knob-log')) > 100, 'the knob followed the pointer');
    // An item the page makes draggable only as its handle is pressed (Sortable.js).
    const sorted = await call('drag', { src_selector: '#sortable li:nth-child(3) .grip', tgt_selector: '#sortable li:nth-child(1)' });
    assert.equal(sorted.input, 'xtest');
    assert.equal(await text('#sort-log'), 'Third First Second');
    await callError(mcp, 'drag', { src_selector: '#item' }, 'INVALID_PARAMS');
    await callError(mcp, 'drag', { src_selector: '#nope', tgt_selector: '#zone' }, 'ELEMENT_NOT_FOUND');
  }));

  it('close_all leaves one blank tab and stale refs fail', { timeout: 30_000 }, logged(async () => {
    await open();
    const ref = refOf(await callText(mcp, 'snapshot'), 'textbox', 'Keyboard field');
    await call('tab_new', { url: suite.fixtures.url('form.html') });
    assert.equal((await call('tab_list')).tabs.length, 2);
    const closed = await call('close_all');
    assert.deepEqual(closed, { closed: 2, tabs: 1 });
    const list = await call('tab_list');
    assert.equal(list.tabs.length, 1);
    assert.equal(list.tabs[0].url, 'about:blank');
    await callError(mcp, 'click', { ref }, 'ELEMENT_NOT_FOUND');
  }));
});
