// The nsigner link's lifetime, against the emulator over a pseudo-terminal
// (the serial transport) and a Unix socket: a logout or switch releases
// the line and ends what waits on the device at once; a device that goes
// away mid-request ends it too; the host refuses lines the protocol does
// not allow; `info` goes out only as the documented health check.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { connectPanel } from './support/agent.mjs';
import { TEST_NSEC, TEST_PUBKEY, callError, callJson, connectMcp } from './support/mcp.mjs';
import { startEmulator } from './support/nsigner.mjs';
import { siteCalls } from './support/site_calls.mjs';
import { waitFor } from './support/wait.mjs';

const TRANSPORTS = ['serial', 'unix'];

describe('the nsigner link', { timeout: 240_000 }, () => {
  let browser;
  let fixtures;
  let mcp;
  let panel;
  let dir;
  let site;
  const emulators = [];
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);

  /** An emulator on `transport`, and the login arguments that reach it. */
  async function device(transport, extra = []) {
    const args = transport === 'serial' ? ['--pty'] : ['--unix', path.join(dir, `${emulators.length}.sock`)];
    const emu = await startEmulator([...args, ...extra]);
    emulators.push(emu);
    const where = emu.where.slice(emu.where.indexOf(':') + 1);
    return { emu, login: { method: 'nsigner', transport, device: where } };
  }

  /**
   * Starts a window.nostr call as the web app's own (a new page of it);
   * `settled()` gives {ok, value|error, at}, `at` being when the page heard.
   */
  async function startInPage(expression, page) {
    await site.start(expression, page);
    return () => site.result();
  }

  const note = (content) => JSON.stringify({ kind: 1, content, tags: [], created_at: 1_700_000_000 });

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nsigner-link-'));
    fixtures = await startFixtureServer();
    browser = await startBrowser();
    mcp = await connectMcp(browser);
    panel = await connectPanel(browser);
    site = siteCalls(mcp, fixtures.url('/nostr-app.html'));
    // The page may sign: allowed once and for all by the person, under a local key.
    await call('login', { method: 'local', nsec: TEST_NSEC });
    const settled = await startInPage(`window.nostr.signEvent(${note('allow')})`);
    const prompt = await waitFor(async () => (await panel.call('nostr_permissions')).result.prompts[0], 'the prompt');
    await panel.call('nostr_prompt_answer', { id: prompt.id, allow: true, remember: true });
    assert.equal((await settled()).ok, true);
  }, { timeout: 90_000 });

  after(async () => {
    await panel?.close();
    await mcp?.close().catch(() => {});
    await browser?.stop();
    await fixtures?.close();
    for (const e of emulators) e.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: logout and switch release the link, and the same device logs in again at once`, async () => {
      const { emu, login } = await device(transport);
      assert.equal((await call('login', login)).pubkey, TEST_PUBKEY);
      await call('logout');
      const started = Date.now();
      assert.equal((await call('login', login)).pubkey, TEST_PUBKEY, 'a second login on the same device');
      assert.ok(Date.now() - started < 5000, 'without waiting for an old link to time out');
      await call('switch_identity', { method: 'local', nsec: TEST_NSEC });
      assert.equal((await call('switch_identity', login)).pubkey, TEST_PUBKEY, 'and after a switch');
      assert.equal((await call('login_status')).signer_reachable, true);
      await waitFor(() => (emu.log().match(/session closed/g) ?? []).length >= (transport === 'unix' ? 2 : 0),
        'the device to see the old sessions closed');
    });

    test(`${transport}: a logout ends a signature waiting on the device at once, and the next identity is untouched`, async () => {
      const { emu, login } = await device(transport, ['--silent-on', 'sign_event']);
      await call('login', login);
      // The page also tells the fixture server when its request ends: the
      // browser's tools cannot read the page while no one is logged in.
      const mark = `${transport}-${Date.now()}`;
      const settled = await startInPage(`window.nostr.signEvent(${note('waits')})
        .catch((e) => { fetch('/submit?mark=${mark}&settled=' + encodeURIComponent(e.message)); throw e; })`);
      await waitFor(() => /request sign_event/.test(emu.log()), 'the device to be asked');
      await call('logout');
      // The page hears the refusal while no one is logged in (the device,
      // silent, would have let it wait 120 s): the reason is the logout's.
      const heard = await waitFor(() => fixtures.submitted().find((s) => s.mark === mark), 'the page to hear its request end');
      const reason = 'Sovereign Browser: the identity this request was made under was logged out or switched; nothing was signed or decrypted';
      assert.equal(heard.settled, reason);
      assert.equal((await call('login_status')).logged_in, false, 'heard before anyone logged in again');
      await call('login', { method: 'local', nsec: TEST_NSEC });
      const ended = await settled();
      assert.equal(ended.ok, false);
      assert.equal(ended.error, reason);

      // A new page in the same tab, under the new identity: its request is its own.
      const next = await (await startInPage(`window.nostr.signEvent(${note('after')})`, fixtures.url('/nostr-app.html?again')))();
      assert.equal(next.ok, true, JSON.stringify(next));
      assert.equal(next.value.content, 'after');
    });
  }

  test('a device that goes away mid-request ends it at once, saying so', async () => {
    const { emu, login } = await device('serial', ['--silent-on', 'sign_event']);
    await call('login', login);
    const settled = await startInPage(`window.nostr.signEvent(${note('lost')})`);
    await waitFor(() => /request sign_event/.test(emu.log()), 'the device to be asked');
    emu.stop();
    const gone = Date.now();
    const ended = await settled();
    assert.equal(ended.ok, false);
    assert.match(ended.error, /signer is unavailable: the link to the device closed \(serial:/);
    assert.ok(Date.now() - gone < 5000);
    await call('logout');
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: an event too long for one protocol line is refused at once, and never sent`, async () => {
      const { emu, login } = await device(transport);
      await call('login', login);
      const started = Date.now();
      const refused = await (await startInPage(`window.nostr.signEvent({ ...${note('')}, content: 'x'.repeat(70_000) })`))();
      assert.equal(refused.ok, false);
      assert.match(refused.error, /^Sovereign Browser: the request is \d+ bytes on the line; a device takes lines of at most 65536 bytes$/);
      assert.ok(Date.now() - started < 5000);
      assert.ok(!/request sign_event/.test(emu.log()), 'the device never saw it');
      await call('logout');
    });

    test(`${transport}: info goes out only as the health check, after 10 s without a word from the device`, async () => {
      const { emu, login } = await device(transport);
      await call('login', login);
      const infos = () => (emu.log().match(/request info/g) ?? []).length;
      const atLogin = infos();
      assert.equal(atLogin, 1, 'one info at login, for the protocol version');
      for (let i = 0; i < 10; i++) assert.equal((await call('login_status')).signer_reachable, true);
      assert.equal(infos(), atLogin, 'no info for a status while the device spoke lately');
      await call('logout');
    });
  }

  test('a bad port and a bad speed are the same kind of mistake: INVALID_PARAMS on device, said once', async () => {
    const port = await callError(mcp, 'login', { method: 'nsigner', transport: 'tcp', device: '127.0.0.1:99999' }, 'INVALID_PARAMS');
    const baud = await callError(mcp, 'login', { method: 'nsigner', transport: 'serial', device: '/dev/ttyACM0@12345' }, 'INVALID_PARAMS');
    for (const message of [port, baud]) {
      assert.match(message, /^device: /);
      assert.equal(message.split('device:').length, 2, `said once: ${message}`);
    }
    assert.match(port, /bad port "99999" \(1 to 65535\)/);
    assert.match(baud, /bad baud rate "12345" \(one of 1200, .*115200/);
  });
});
