// Big pages (tests/fixtures/big-page.html makes about 20,000 elements):
// the whole snapshot on request, paging from the first part to the last
// with every control once and refs that act, the outline and a heading's
// section, and the clear error above the largest size.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';

const CLOSING = /\n\[\.\.\. (\d+) more lines, (\d+) refs: snapshot \{after: "([^"]+)"[^}]*\} goes on; outline: true lists the parts\]$/;

/** The tree of a snapshot's text (its url/title header taken off). */
function treeOf(text) {
  return text.split('\n').filter((l) => !/^(url|title|frame): /.test(l)).join('\n');
}

/** Every part of a snapshot from the first to the last: [parts, calls]. */
async function allParts(mcp, args) {
  const parts = [];
  let after;
  for (let calls = 1; calls < 500; calls++) {
    const text = treeOf(await callText(mcp, 'snapshot', after ? { ...args, after } : args));
    const closing = text.match(CLOSING);
    parts.push(closing ? text.slice(0, closing.index) : text);
    if (!closing) return parts;
    after = closing[3];
  }
  throw new Error('no last part after 500 calls');
}

const refsOf = (text) => [...text.matchAll(/^\s*(e\d+) /gm)].map((m) => m[1]);

describe('big pages', { timeout: 300_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  const open = () => call('open', { url: suite.fixtures.url('/big-page.html') });

  it('the page is big: about 20,000 elements and 4,000 controls', logged(async () => {
    await open();
    const counts = (await call('eval', {
      script: "[document.getElementsByTagName('*').length, document.querySelectorAll('a, button, input').length]",
    })).value;
    assert.ok(counts[0] >= 19_000 && counts[0] <= 22_000, `${counts[0]} elements`);
    assert.ok(counts[1] >= 3_900, `${counts[1]} controls`);
  }));

  it('the whole snapshot on request: every control, nothing cut', logged(async () => {
    await open();
    const whole = treeOf(await callText(suite.mcp, 'snapshot', { max_chars: 4_000_000 }));
    assert.doesNotMatch(whole, /more lines/);
    const controls = (await call('eval', { script: "document.querySelectorAll('a, button, input').length" })).value;
    assert.equal(new Set(refsOf(whole)).size, controls);
    assert.ok(whole.endsWith('\n' + refsOf(whole).at(-1) + ' button "The last button"'), whole.slice(-200));
  }));

  it('parts from the first to the last hold every line once, with the same refs; the last ref acts', logged(async () => {
    await open();
    const whole = treeOf(await callText(suite.mcp, 'snapshot', { max_chars: 4_000_000 }));
    const parts = await allParts(suite.mcp, {});
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    assert.ok(parts.every((p) => p.length <= 60_000), 'each part within the default size');
    assert.equal(parts.join('\n'), whole, 'the parts joined are the whole snapshot');
    const refs = refsOf(parts.join('\n'));
    assert.equal(new Set(refs).size, refs.length, 'no ref twice');
    const last = parts.at(-1).match(/(e\d+) button "The last button"/);
    assert.ok(last, parts.at(-1).slice(-200));
    await call('click', { ref: last[1] });
    assert.equal((await call('eval', { script: "document.getElementById('status').textContent" })).value,
      'clicked The last button');
  }));

  it('paging works with interactive: false, a selector and diff', logged(async () => {
    await open();
    const whole = treeOf(await callText(suite.mcp, 'snapshot', { interactive: false, max_chars: 4_000_000 }));
    const parts = await allParts(suite.mcp, { interactive: false, max_chars: 100_000 });
    assert.ok(parts.length >= 3, `${parts.length} parts of the full tree`);
    assert.equal(parts.join('\n'), whole);

    const scoped = treeOf(await callText(suite.mcp, 'snapshot', { selector: 'aside', max_chars: 4_000_000 }));
    const scopedParts = await allParts(suite.mcp, { selector: 'aside', max_chars: 300 });
    assert.ok(scopedParts.length >= 3);
    assert.equal(scopedParts.join('\n'), scoped);
    assert.equal(refsOf(scoped).length, 30, 'the 30 related links');

    await callText(suite.mcp, 'snapshot', {});
    await call('eval', {
      script: "for (let i = 0; i < 3000; i++) { const b = document.createElement('button'); b.textContent = 'Added ' + i; document.querySelector('footer').append(b); } true",
    });
    const changes = await allParts(suite.mcp, { diff: true, max_chars: 20_000 });
    assert.ok(changes.length >= 3, `${changes.length} parts of the diff`);
    assert.match(changes[0], /^changes since the previous snapshot: 3000 added, 0 removed/);
    const added = changes.join('\n').split('\n').filter((l) => /^\+ e\d+ button "Added /.test(l));
    assert.equal(added.length, 3000, 'every added button once, in the parts of one diff');
  }));

  it('a cursor of a line the page removed is STALE_REF; a bad cursor and outline with diff are INVALID_PARAMS', logged(async () => {
    await open();
    const first = treeOf(await callText(suite.mcp, 'snapshot', {}));
    const cursor = first.match(CLOSING)[3];
    const ref = cursor.replace(/\+\d+$/, '');
    await call('eval', { script: 'document.querySelector("main").remove(); true' });
    const stale = await callError(suite.mcp, 'snapshot', { after: cursor }, 'STALE_REF');
    assert.match(stale, new RegExp(`${ref} is not in this snapshot any more`));
    await callError(suite.mcp, 'snapshot', { after: 'somewhere' }, 'INVALID_PARAMS');
    await callError(suite.mcp, 'snapshot', { outline: true, diff: true }, 'INVALID_PARAMS');
    const refused = await callError(suite.mcp, 'snapshot', { max_chars: 4_000_001 }, 'INVALID_PARAMS');
    assert.match(refused, /max_chars: 1 to 4000000/);
  }));

  it('the outline: landmarks and headings with refs and control counts; a heading\'s ref reads its section', logged(async () => {
    await open();
    const outline = treeOf(await callText(suite.mcp, 'snapshot', { outline: true }));
    const controls = (await call('eval', { script: "document.querySelectorAll('a, button, input').length" })).value;
    assert.match(outline, new RegExp(`^outline: ${controls} controls in all; snapshot \\{ref\\} reads one part`));
    // The h1's section holds the navigation after it.
    assert.match(outline, /\ne\d+ banner: 20 controls\n {2}e\d+ heading "Big page" \[level=1\]: 20 controls\n {2}e\d+ navigation "Chapters": 20 controls/);
    // 10 sections of 12 buttons, 8 links, a field and a checkbox each.
    const chapter = outline.match(/\n {2}(e\d+) heading "Chapter 7" \[level=2\]: (\d+) controls/);
    assert.ok(chapter, outline.slice(0, 2000));
    assert.equal(Number(chapter[2]), 10 * 22);
    assert.match(outline, /\ne\d+ main: 4400 controls/);
    assert.match(outline, /\ne\d+ complementary "Related": 30 controls/);
    assert.match(outline, /\ne\d+ contentinfo: 1 control$/);
    assert.match(outline, /; 200 headings of level 3-6 left out\n/);

    const section = treeOf(await callText(suite.mcp, 'snapshot', { ref: chapter[1] }));
    const lines = section.split('\n');
    assert.match(lines[0], /^heading "Chapter 7" \[level=2\]/);
    assert.equal(refsOf(section).length, 10 * 22, 'the chapter\'s controls, no more');
    assert.ok(section.includes('button "Open 7.10.12"') && !section.includes('Open 6.') && !section.includes('Open 8.'));
    const buttons = section.match(/(e\d+) button "Open 7\.3\.4"/);
    await call('click', { ref: buttons[1] });
    assert.equal((await call('eval', { script: "document.getElementById('status').textContent" })).value, 'clicked Open 7.3.4');
  }));
});
