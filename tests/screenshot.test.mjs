// screenshot: the viewport, the whole page or one element, png or jpeg,
// returned or written to the files folder; checked by the image's pixels,
// its size against the page's own, and the file's bytes.
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { filesSuite } from './support/session.mjs';
import { callError } from './support/mcp.mjs';
import { decodePng } from './support/png.mjs';

describe('screenshot', { timeout: 120_000 }, () => {
  const suite = filesSuite('/screenshot.html');
  const { call, logged, dir } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });

  /** The image and the text of a screenshot's result. */
  const shoot = async (args = {}) => {
    const reply = await mcp.callTool('screenshot', args);
    assert.ok(!reply.isError, JSON.stringify(reply).slice(0, 300));
    const image = reply.content.find((c) => c.type === 'image');
    const text = reply.content.find((c) => c.type === 'text')?.text;
    return { bytes: Buffer.from(image.data, 'base64'), mime: image.mimeType, text };
  };
  const page = async (script) => (await call('eval', { script })).value;
  /** Whether every pixel of a decoded PNG is this colour. */
  const allOf = (png, [r, g, b]) => {
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        const [pr, pg, pb] = png.pixel(x, y);
        if (pr !== r || pg !== g || pb !== b) return `pixel ${x},${y} is ${pr},${pg},${pb}`;
      }
    }
    return true;
  };

  it('an element, by selector or ref, is its box and nothing else, scrolled to when below the fold', logged(async () => {
    const snapshot = (await mcp.callTool('snapshot', {})).content[0].text;
    const ref = /(e\d+) button "Red box"/.exec(snapshot)?.[1];
    assert.ok(ref, snapshot);
    for (const args of [{ selector: '#box' }, { ref }]) {
      const red = await shoot(args);
      assert.equal(red.mime, 'image/png');
      const png = decodePng(red.bytes);
      assert.deepEqual([png.width, png.height], [120, 40]);
      assert.equal(allOf(png, [255, 0, 0]), true);
      assert.equal(red.text, 'png, 120 x 40 px');
    }

    const blue = decodePng((await shoot({ selector: '#far' })).bytes);
    assert.deepEqual([blue.width, blue.height], [80, 30]);
    assert.equal(allOf(blue, [0, 0, 255]), true);
    assert.ok(await page('scrollY') > 1000, 'the page was scrolled to it');
  }));

  it('the viewport by default; full_page the whole page at its own height', logged(async () => {
    const [innerWidth, innerHeight, scrollHeight] = await page('[innerWidth, innerHeight, document.documentElement.scrollHeight]');
    const viewport = decodePng((await shoot()).bytes);
    assert.deepEqual([viewport.width, viewport.height], [innerWidth, innerHeight]);
    const whole = await shoot({ full_page: true });
    const full = decodePng(whole.bytes);
    assert.equal(full.height, scrollHeight);
    assert.ok(scrollHeight >= 3000 && full.width >= innerWidth - 20, `${full.width} x ${full.height}`);
    // The blue box 2,000 px down is in it, where the page has it.
    assert.deepEqual(full.pixel(50, 2015).slice(0, 3), [0, 0, 255]);
    assert.equal(whole.text, `png, ${full.width} x ${full.height} px`);
  }));

  it('jpeg with a quality: a JPEG, smaller at a lower quality', logged(async () => {
    const fine = await shoot({ format: 'jpeg', quality: 95, full_page: true });
    const rough = await shoot({ format: 'jpeg', quality: 10, full_page: true });
    assert.equal(fine.mime, 'image/jpeg');
    assert.deepEqual([...fine.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.ok(rough.bytes.length < fine.bytes.length, `${rough.bytes.length} < ${fine.bytes.length}`);
    assert.match(fine.text, /^jpeg, \d+ x \d+ px$/);
  }));

  it('path writes the image to the files folder and says where and how big', logged(async () => {
    const file = path.join(dir, 'box.png');
    const saved = await call('screenshot', { selector: '#box', path: file });
    assert.deepEqual([saved.format, saved.width, saved.height], ['png', 120, 40]);
    const bytes = readFileSync(saved.path);
    assert.equal(bytes.length, saved.bytes);
    assert.deepEqual([decodePng(bytes).width, decodePng(bytes).height], [120, 40]);
    await callError(mcp, 'screenshot', { path: '/etc/shot.png' }, 'INVALID_PARAMS');
  }));

  it('parameters that do not go together are refused', logged(async () => {
    await callError(mcp, 'screenshot', { quality: 50 }, 'INVALID_PARAMS');
    await callError(mcp, 'screenshot', { format: 'jpeg', quality: 0 }, 'INVALID_PARAMS');
    await callError(mcp, 'screenshot', { selector: '#box', full_page: true }, 'INVALID_PARAMS');
    await callError(mcp, 'screenshot', { format: 'gif' }, 'INVALID_PARAMS');
    await callError(mcp, 'screenshot', { selector: '#nothing' }, 'ELEMENT_NOT_FOUND');
  }));
});
