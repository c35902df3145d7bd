// console, errors, highlight, upload, pdf and screenshot_annotated, each
// checked by what a user would look at: the log, the page, the file, the image.
import { describe, it, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loggedInSuite } from './support/session.mjs';
import { callError, callText } from './support/mcp.mjs';
import { decodePng } from './support/png.mjs';
import { waitFor } from './support/wait.mjs';

describe('console, errors, files and annotations', { timeout: 180_000 }, () => {
  // The files folder agents' tools are confined to.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-files-'));
  const suite = loggedInSuite({ args: ['--files-dir', dir] });
  const { call, logged } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const open = (p) => call('open', { url: suite.fixtures.url(p) });
  const text = async (selector) => (await callText(mcp, 'get_text', { selector })).trim();

  it('console and errors collect from page start, all frames, with levels, sources and lines', { timeout: 30_000 }, logged(async () => {
    await open('console.html');
    await call('click', { selector: '#warn' });
    await call('click', { selector: '#throw' });
    await call('click', { selector: '#reject' });
    await waitFor(async () => (await call('errors')).count === 3, 'three errors');
    const log = await call('console');
    const calls = log.entries.filter((e) => e.source === 'console-api');
    // Each frame's messages come in its order; the frame loads beside the
    // main document, so where its message falls among the main's is the
    // engine's timing.
    const fromFrame = calls.filter((e) => /console-frame\.html$/.test(e.url));
    const fromMain = calls.filter((e) => !fromFrame.includes(e));
    assert.deepEqual(fromMain.map((e) => `${e.level} ${e.text}`), [
      'log early log {"n":1}', 'error about to fail', 'warn warned on click',
    ]);
    assert.deepEqual(fromFrame.map((e) => `${e.level} ${e.text}`), ['info from the frame']);
    assert.equal(calls.at(-1).text, 'warned on click', 'the click came after the page loaded');
    assert.equal(fromMain[1].line, 2, 'console.error is on line 2 of console-error.js');
    // The engine's own messages are there too: the missing stylesheet's 404.
    await waitFor(async () => (await call('console', { level: 'error' })).entries
      .some((e) => e.source === 'network' && /missing\.css$/.test(e.url) && /404/.test(e.text)), 'the 404 of missing.css');
    const errors = (await call('errors')).entries;
    assert.equal(errors[0].text, "ReferenceError: Can't find variable: undefinedFunctionCall");
    assert.match(errors[0].source, /console-error\.js$/);
    assert.equal(errors[0].line, 3);
    assert.match(errors[1].text, /TypeError: thrown on click/);
    assert.equal(errors[2].kind, 'rejection');
    assert.match(errors[2].text, /rejected on click/);
    assert.match(errors[0].stack, /console-error\.js:3/);
    const warns = await call('console', { level: 'warn', clear: true });
    assert.deepEqual(warns.entries.map((e) => e.text), ['warned on click']);
    assert.equal((await call('console')).count, 0, 'clear emptied the log');
    assert.equal((await call('console', { limit: 1 })).shown, 0);
    await callError(mcp, 'console', { level: 'loud' }, 'INVALID_PARAMS');
  }));

  it('console gives the newest limit messages, oldest first, as it says', { timeout: 30_000 }, logged(async () => {
    await open('form.html');
    await call('console', { clear: true });
    await call('eval', { script: "for (let i = 1; i <= 5; i++) console.debug('message ' + i); true" });
    await waitFor(async () => (await call('console', { level: 'debug' })).count === 5, 'five messages');
    const read = await call('console', { level: 'debug', limit: 3 });
    assert.deepEqual([read.count, read.shown], [5, 3]);
    assert.deepEqual(read.entries.map((e) => e.text), ['message 3', 'message 4', 'message 5']);
    const tool = (await mcp.listTools()).find((t) => t.name === 'console');
    assert.match(tool.description, /newest limit, oldest first/);
  }));

  it('highlight outlines an element a person can see', { timeout: 30_000 }, logged(async () => {
    await open('form.html');
    const box = await call('highlight', { selector: 'h1', ms: 0 });
    assert.equal(box.highlighted, true);
    const style = await call('get_styles', { selector: 'h1', properties: ['outline-color', 'outline-style'] });
    assert.deepEqual(style.styles, { 'outline-color': 'rgb(230, 40, 40)', 'outline-style': 'solid' });
    await call('highlight', { selector: 'h1', ms: 100 });
    await waitFor(async () => (await call('get_styles', { selector: 'h1', properties: ['outline-style'] })).styles['outline-style'] === 'none',
      'the outline to go after its time');
    await callError(mcp, 'highlight', { selector: '#nothing' }, 'ELEMENT_NOT_FOUND');
  }));

  it('upload gives the page real files, through a label too; bad paths and inputs are refused', { timeout: 30_000 }, logged(async () => {
    const alpha = path.join(dir, 'alpha.txt');
    const bravo = path.join(dir, 'bravo.txt');
    writeFileSync(alpha, 'alpha file');
    writeFileSync(bravo, 'bravo');
    await open('upload.html');
    const one = await call('upload', { selector: '#one', files: [alpha] });
    assert.deepEqual(one.files, [{ name: 'alpha.txt', size: 10, type: 'text/plain' }]);
    await call('upload', { selector: '#many', files: [alpha, bravo] });
    await call('upload', { selector: '#hidden-input', files: [bravo] });
    await waitFor(async () => (await text('#seen')).split('\n').length === 4, 'the change handlers');
    assert.equal(await text('#seen'), [
      'one: alpha.txt 10 "alpha file"', 'many: alpha.txt 10 "alpha file"', 'many: bravo.txt 5 "bravo"',
      'hidden-input: bravo.txt 5 "bravo"'].join('\n'));
    await callError(mcp, 'upload', { selector: '#one', files: [alpha, bravo] }, 'INVALID_PARAMS');
    await callError(mcp, 'upload', { selector: '#off', files: [alpha] }, 'NOT_INTERACTABLE');
    assert.match(await callError(mcp, 'upload', { selector: '#one', files: [path.join(dir, 'missing.txt')] }, 'INVALID_PARAMS'), /No such file/);
    await callError(mcp, 'upload', { selector: '#one', files: ['alpha.txt'] }, 'INVALID_PARAMS');
    await callError(mcp, 'upload', { selector: '#one', files: [dir] }, 'INVALID_PARAMS');
    assert.match(await callError(mcp, 'upload', { selector: 'h1', files: [alpha] }, 'NOT_INTERACTABLE'),
      /did not open a file chooser/);
  }));

  it('upload through a control that opens a chooser: a scripted button, a button under an unseen input', { timeout: 30_000 }, logged(async () => {
    const alpha = path.join(dir, 'alpha.txt');
    const bravo = path.join(dir, 'bravo.txt');
    writeFileSync(alpha, 'alpha file');
    writeFileSync(bravo, 'bravo');
    await open('upload.html');
    const snap = await callText(mcp, 'snapshot');
    const refOf = (line) => snap.split('\n').find((l) => l.includes(line))?.split(' ')[0];
    // Unlabelled, the input is named as the engines name it.
    assert.ok(refOf('button "Choose File"'), `the covering input is named\n${snap}`);
    const scripted = await call('upload', { ref: refOf('button "Attach a file"'), files: [alpha, bravo] });
    assert.deepEqual(scripted.files.map((f) => f.name), ['alpha.txt', 'bravo.txt']);
    assert.ok(scripted.input, 'names the input that took them');
    const covered = refOf('button "Or choose from your computer"');
    for (const file of [alpha, bravo]) {
      const result = await call('upload', { ref: covered, files: [file] });
      assert.deepEqual(result.files.map((f) => f.name), [path.basename(file)], 'the page\'s input, replaced or not');
    }
    await waitFor(async () => (await text('#seen')).split('\n').length === 4, 'the change handlers');
    assert.equal(await text('#seen'), [
      'by-script: alpha.txt 10 "alpha file"', 'by-script: bravo.txt 5 "bravo"',
      'covering: alpha.txt 10 "alpha file"', 'covering: bravo.txt 5 "bravo"'].join('\n'));
    // A button nothing opens a chooser from is refused, and nothing is chosen.
    assert.match(await callError(mcp, 'upload', { selector: '#plain', files: [alpha] }, 'NOT_INTERACTABLE'),
      /did not open a file chooser/);
  }));

  it('upload answers once the input holds the files and the page heard its events, every time', { timeout: 60_000 }, logged(async () => {
    const alpha = path.join(dir, 'alpha.txt');
    const bravo = path.join(dir, 'bravo.txt');
    writeFileSync(alpha, 'alpha file');
    writeFileSync(bravo, 'bravo');
    await open('upload.html');
    // What the page's own listeners saw, in the order they ran.
    await call('eval', { script: `window.heard = [];
      for (const type of ['input', 'change']) document.getElementById('one').addEventListener(type, (e) =>
        heard.push(type + ' ' + Array.from(e.target.files, (f) => f.name).join(',')));
      1` });
    const expected = { alpha: [{ name: 'alpha.txt', size: 10, type: 'text/plain' }], bravo: [{ name: 'bravo.txt', size: 5, type: 'text/plain' }] };
    const heard = [];
    for (let i = 0; i < 20; i++) {
      const name = i % 2 ? 'bravo' : 'alpha';
      const result = await call('upload', { selector: '#one', files: [name === 'alpha' ? alpha : bravo] });
      assert.deepEqual(result.files, expected[name], `upload ${i + 1} answered before the input held ${name}.txt`);
      heard.push(`input ${name}.txt`, `change ${name}.txt`);
      assert.deepEqual((await call('eval', { script: 'heard' })).value, heard, `upload ${i + 1} answered before the page heard its events`);
    }
    // Choosing the files the input holds already changes nothing, and says so at once.
    assert.deepEqual((await call('upload', { selector: '#one', files: [bravo] })).files, expected.bravo);
    assert.deepEqual((await call('eval', { script: 'heard' })).value, heard, 'no event for files the input held');
  }));

  it('pdf writes a PDF a reader opens, with the page text', { timeout: 60_000 }, logged(async () => {
    await open('form.html');
    const target = path.join(dir, 'page.pdf');
    const written = await call('pdf', { path: target });
    assert.equal(written.path, target);
    assert.ok(written.bytes > 1000);
    const textOfPdf = execFileSync('pdftotext', [target, '-'], { encoding: 'utf8' });
    assert.match(textOfPdf, /Sign up/);
    const fallback = await call('pdf');
    assert.ok(existsSync(fallback.path) && fallback.path.startsWith(dir + path.sep), `a new PDF in the files folder: ${fallback.path}`);
    await callError(mcp, 'pdf', { path: 'relative.pdf' }, 'INVALID_PARAMS');
    await callError(mcp, 'pdf', { path: path.join(dir, 'no-such-folder', 'x.pdf') }, 'INVALID_PARAMS');
    await callError(mcp, 'pdf', { path: dir }, 'INVALID_PARAMS');
  }));

  it('screenshot_annotated draws each ref on its element and gives the legend', { timeout: 30_000 }, logged(async () => {
    await open('form.html');
    const result = await mcp.callTool('screenshot_annotated', {});
    const [image, legend] = result.content;
    assert.equal(image.type, 'image');
    assert.match(legend.text, /^e\d+ textbox "Name"$/m);
    assert.match(legend.text, /^e\d+ button "Create account"$/m);
    const png = decodePng(Buffer.from(image.data, 'base64'));
    const box = await call('get_box', { selector: '#name' });
    const [r, g, b] = png.pixel(box.x + box.width / 2, box.y);
    assert.ok(r > 180 && g < 90 && b < 90, `a red box edge on the Name field, got ${r},${g},${b}`);
    const plain = (await mcp.callTool('screenshot', {})).content[0];
    const [pr, pg, pb] = decodePng(Buffer.from(plain.data, 'base64')).pixel(box.x + box.width / 2, box.y);
    assert.ok(!(pr > 180 && pg < 90 && pb < 90), 'the plain screenshot has no box there');
  }));
});
