// Every agent's work, recorded step by step: each call with its arguments
// (secrets replaced), outcome, page before and after, and the element it
// acted on; on disk in the profile, an ephemeral context's in memory only;
// read by the person alone; off with --no-record.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nip19 } from 'nostr-tools';
import { startBrowser } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, callJson, callText, connectMcp } from './support/mcp.mjs';
import { connectPanel } from './support/agent.mjs';
import { refOf } from './support/snapshot.mjs';
import { filesUnder } from './support/run.mjs';
import { waitFor } from './support/wait.mjs';

const TEST_HEX = Buffer.from(nip19.decode(TEST_NSEC).data).toString('hex');
const PASSWORD = 'hunter2-not-for-recordings';

describe('recording', { timeout: 180_000 }, () => {
  let dir;
  let fixtures;
  before(async () => {
    fixtures = await startFixtureServer();
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-recording-'));
  });
  after(async () => {
    await fixtures?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps each step of an agent\'s flow, with the element and pages, and no secret', async () => {
    const profile = path.join(dir, 'profile');
    const browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile] });
    const panel = await connectPanel(browser);
    const mcp = await connectMcp(browser, { name: 'recorded-agent' });
    const marker = `passing${Date.now()}`;
    try {
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'open', { url: fixtures.url('/form.html') });
      const snap = await callText(mcp, 'snapshot');
      await callJson(mcp, 'fill', { ref: refOf(snap, 'textbox', 'Name'), value: 'Ada' });
      await callJson(mcp, 'fill', { selector: '#password', value: PASSWORD });
      await callJson(mcp, 'focus', { selector: '#password' });
      await callJson(mcp, 'keyboard_type', { value: `${PASSWORD}-keys` });
      await callJson(mcp, 'click', { ref: refOf(snap, 'checkbox', 'I agree') });
      await callJson(mcp, 'click', { ref: refOf(snap, 'button', 'Create account') });
      // An ephemeral context's steps stay in memory.
      await callJson(mcp, 'context_new', { name: 'passing' });
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'open', { url: fixtures.url(`/form.html?${marker}`) });

      const sessions = async () => (await panel.call('record_sessions', {})).result;
      const listed = await waitFor(async () => (await sessions()).sessions.find((s) => s.client === 'recorded-agent' && s.on_disk && s.steps >= 9),
        'the agent\'s recorded session');
      const steps = (await panel.call('record_steps', { session: listed.session })).result.steps;
      assert.deepEqual(steps.map((s) => s.tool),
        ['login', 'open', 'snapshot', 'fill', 'fill', 'focus', 'keyboard_type', 'click', 'click', 'context_new', 'login', 'open']);
      assert.deepEqual(steps.map((s) => s.n), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      const [login, open, , fillName, fillPassword, , keys, agree, create, , , openPassing] = steps;
      // Keys typed into the focused password field are a secret too.
      assert.deepEqual([keys.args.value, keys.element.secret, keys.element.name], ['[secret]', true, 'Password']);
      assert.equal(keys.result.value, '[secret]');
      assert.equal(login.args.nsec, '[secret]');
      assert.equal(login.ok, true);
      assert.equal(open.after.url, fixtures.url('/form.html'));
      assert.equal(open.after.title, 'Sign up');
      assert.ok(open.requests && open.requests.last >= open.requests.first, 'the requests the open caused');
      assert.deepEqual([fillName.args.value, fillName.element.role, fillName.element.name], ['Ada', 'textbox', 'Name']);
      assert.equal(fillName.element.ref, refOf(snap, 'textbox', 'Name'));
      assert.deepEqual([fillPassword.args.value, fillPassword.element.secret, fillPassword.element.name], ['[secret]', true, 'Password']);
      assert.notEqual(fillPassword.result.value, PASSWORD);
      assert.deepEqual([agree.element.role, agree.element.name], ['checkbox', 'I agree']);
      assert.equal(create.before.url, fixtures.url('/form.html'));
      assert.notEqual(create.after.url, create.before.url, 'the click navigated');
      assert.equal(openPassing.context, 'passing');
      // A picture of the page after each input and navigation, taken after
      // the reply: a small JPEG; none for a read, none in an ephemeral context.
      assert.deepEqual(steps.map((s) => !!s.shot), [false, true, false, true, true, false, true, true, true, false, false, false]);
      const shot = await waitFor(async () => {
        const reply = await panel.call('record_shot', { session: listed.session, n: create.n });
        return reply.ok && reply.result;
      }, 'the picture after the click');
      const jpeg = Buffer.from(shot.jpeg_base64, 'base64');
      assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
      assert.ok(jpeg.length > 1000 && jpeg.length < 100_000, `${jpeg.length} bytes`);
      // The viewport, 320 pixels wide (a landscape window: less high than wide).
      const { width, height } = jpegSize(jpeg);
      assert.equal(width, 320);
      assert.ok(height > 100 && height < 320, `${width}x${height}`);
      const noShot = await panel.call('record_shot', { session: listed.session, n: 3 });
      assert.equal(noShot.ok, false);
      assert.ok(steps.every((s) => s.session === listed.session && s.transport === 'mcp' && s.ms >= 0));

      // The panel's own calls are not an agent's work.
      assert.ok(!(await sessions()).sessions.some((s) => s.transport === 'panel'));
      // An agent may not read recordings.
      assert.equal((await mcp.callTool('record_sessions', {})).isError, true);
    } finally {
      panel.close();
      await mcp.close();
      await browser.stop();
    }
    const files = filesUnder(path.join(profile, 'recordings'));
    assert.ok(files.some((f) => f.text.includes('"tool":"fill"')), 'the steps are on disk');
    for (const secret of [TEST_NSEC, TEST_HEX, PASSWORD, `${PASSWORD}-keys`, marker]) {
      const holding = files.filter((f) => f.text.includes(secret)).map((f) => f.file);
      assert.deepEqual(holding, [], `${secret.slice(0, 12)}… is in no recording on disk`);
    }
    for (const { file } of files) assert.equal(statSync(file).mode & 0o077, 0, `${file} is owner-only`);
  });

  it('keeps what sites and pages hold by its shape only: no cookie, header, body or storage value', async () => {
    const profile = path.join(dir, 'shapes');
    const browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile] });
    const panel = await connectPanel(browser);
    const mcp = await connectMcp(browser, { name: 'shapes-agent' });
    const values = ['ck-value-0193', 'st-value-5521', 'ev-value-7730', 'qs-value-4410', 'hd-value-8812'];
    try {
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'open', { url: fixtures.url(`/set-cookie?name=sid&value=${values[0]}&key=${values[4]}`) });
      const cookies = await callJson(mcp, 'cookies_get');
      assert.ok(JSON.stringify(cookies).includes(values[0]), 'the agent gets the value');
      const listed = await callJson(mcp, 'network_requests', { url: 'set-cookie' });
      const request = await callJson(mcp, 'network_request', { id: listed.requests.at(-1).id });
      assert.equal(request.response_headers['X-Api-Key'], values[4]);
      await callJson(mcp, 'eval', { script: `localStorage.setItem('jwt', '${values[1]}'); 1` });
      await callJson(mcp, 'storage_local_get');
      await callJson(mcp, 'eval', { script: `'${values[2]}'` });
      await callJson(mcp, 'open', { url: fixtures.url(`/form.html?token=${values[3]}`) });
      await callJson(mcp, 'get_url');

      // Steps are written after each reply is sent: wait for the last one.
      const session = await waitFor(async () => (await panel.call('record_sessions', {})).result.sessions
        .find((s) => s.client === 'shapes-agent'), 'the recorded session');
      const steps = await waitFor(async () => {
        const kept = (await panel.call('record_steps', { session: session.session })).result.steps;
        return kept.some((s) => s.tool === 'get_url') && kept;
      }, 'the last step recorded');
      const byTool = (tool) => steps.filter((s) => s.tool === tool).at(-1);
      // What stays: names, counts, ids, status.
      const cookie = byTool('cookies_get').result.cookies.find((c) => c.name === 'sid');
      assert.equal(cookie.value, `[${values[0].length} chars]`);
      assert.equal(byTool('network_request').result.status, 200);
      assert.equal(byTool('network_request').result.response_headers['X-Api-Key'], `[${values[4].length} chars]`, 'header names stay');
      assert.equal(byTool('get_url').result.url, fixtures.url('/form.html'), 'an address without its query');
      // What goes: every value a site or page gave (the agent's own arguments are its words, kept).
      for (const step of steps) {
        for (const value of values) assert.ok(!JSON.stringify(step.result ?? null).includes(value), `${value} in ${step.tool}'s result: ${JSON.stringify(step.result)}`);
      }
    } finally {
      panel.close();
      await mcp.close();
      await browser.stop();
    }
  });

  it('keeps nothing with --no-record, and the person can clear what was kept', async () => {
    const off = await startBrowser({ args: ['--no-record'] });
    try {
      const panel = await connectPanel(off);
      const mcp = await connectMcp(off);
      await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(mcp, 'get_url');
      const { result } = await panel.call('record_sessions', {});
      assert.deepEqual([result.recording, result.sessions], [false, []]);
      panel.close();
      await mcp.close();
    } finally {
      await off.stop();
    }
    const on = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', path.join(dir, 'profile')] });
    try {
      const panel = await connectPanel(on);
      assert.ok((await panel.call('record_sessions', {})).result.sessions.length >= 1, 'kept across the restart');
      await panel.call('record_clear', {});
      assert.deepEqual((await panel.call('record_sessions', {})).result.sessions, []);
      panel.close();
    } finally {
      await on.stop();
    }
    assert.deepEqual(readdirSync(path.join(dir, 'profile', 'recordings')), []);
  });
});

/** A baseline or progressive JPEG's size, from its start-of-frame segment. */
function jpegSize(jpeg) {
  let at = 2;
  while (at + 9 < jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1];
    if (marker >= 0xc0 && marker <= 0xc2) {
      return { height: jpeg.readUInt16BE(at + 5), width: jpeg.readUInt16BE(at + 7) };
    }
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  throw new Error('no start-of-frame segment in the JPEG');
}
