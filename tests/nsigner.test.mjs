// The nsigner login through MCP and /agent, against the nsigner emulator
// over a Unix socket, TCP, a pseudo-terminal and a stand-in qrexec client.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from './support/wait.mjs';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { connectAgent, connectPanel, agentCall, agentError } from './support/agent.mjs';
import { TEST_NSEC, TEST_NPUB, TEST_PUBKEY, callError, callJson, connectMcp } from './support/mcp.mjs';
import { EMULATOR, startEmulator } from './support/nsigner.mjs';

const OTHER_NPUB = 'npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h';
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

describe('nsigner login', { timeout: 180_000 }, () => {
  let browser;
  let mcp;
  let dir;
  const emulators = [];
  const test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => browser, fn));
  const call = (tool, args = {}) => callJson(mcp, tool, args);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nsigner-'));
    // A stand-in for Qubes' qrexec-client-vm: the emulator is the service of
    // qube "vault"; qube "denied" is refused by policy (exit 126).
    writeFileSync(path.join(dir, 'qrexec-client-vm'), [
      '#!/bin/sh',
      '[ "$1" = denied ] && { echo "Request refused" >&2; exit 126; }',
      '[ "$2" = qubes.NsignerRpc ] || exit 1',
      `echo $$ > "${dir}/qrexec.pid"`,
      `exec "${EMULATOR}" --key ${TEST_NSEC} --stdio 2>/dev/null`,
      '',
    ].join('\n'));
    chmodSync(path.join(dir, 'qrexec-client-vm'), 0o755);
    browser = await startBrowser({ env: { PATH: `${dir}:${process.env.PATH}` } });
    mcp = await connectMcp(browser);
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
    for (const e of emulators) e.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('logout and switch_identity release the device link', async () => {
    const emu = await startEmulator(['--unix', path.join(dir, 'release.sock')]);
    emulators.push(emu);
    await call('login', { method: 'nsigner', transport: 'unix', device: emu.where.slice('unix:'.length) });
    assert.match(emu.log(), /session opened/);
    await call('logout');
    await waitFor(() => /session closed/.test(emu.log()), 'the device to see its session closed');
    // qrexec: the client process ends when the identity is switched away.
    await call('login', { method: 'nsigner', transport: 'qrexec', device: 'vault' });
    const pid = Number(readFileSync(path.join(dir, 'qrexec.pid'), 'utf8'));
    assert.ok(alive(pid), 'the qrexec client runs while logged in');
    await call('switch_identity', { method: 'readonly', npub: TEST_NPUB });
    await waitFor(() => !alive(pid), 'the qrexec client to end');
  });

  test('over a Unix socket: login, status with reachability, browser tools open', async () => {
    const emu = await startEmulator(['--unix', path.join(dir, 'signer.sock')]);
    emulators.push(emu);
    const login = await call('login', { method: 'nsigner', transport: 'unix', device: emu.where.slice('unix:'.length) });
    assert.equal(login.method, 'nsigner');
    assert.equal(login.pubkey, TEST_PUBKEY);
    const status = await call('login_status');
    assert.equal(status.signer_reachable, true);
    assert.equal(typeof (await call('get_url')).url, 'string');
    // The device goes away: the status says so.
    emu.stop();
    await waitFor(async () => (await call('login_status')).signer_reachable === false,
      'login_status to say the signer is unreachable', 5_000);
  });

  test('over TCP, with a key index', async () => {
    const emu = await startEmulator(['--tcp', '127.0.0.1:0']);
    emulators.push(emu);
    const login = await call('switch_identity', { method: 'nsigner', transport: 'tcp', device: emu.where.slice('tcp:'.length), index: 1 });
    assert.equal(login.pubkey, emu.keys[1]);
    const wrong = await callError(mcp, 'switch_identity', { method: 'nsigner', transport: 'tcp', device: emu.where.slice('tcp:'.length), index: 9 }, 'INVALID_PARAMS');
    assert.match(wrong, /index: the signer has no key at index 9/);
    assert.equal((await call('login_status')).logged_in, false, 'a failed switch logs out');
  });

  test('over a serial line (a pseudo-terminal)', async () => {
    const emu = await startEmulator(['--pty']);
    emulators.push(emu);
    const login = await call('login', { method: 'nsigner', transport: 'serial', device: emu.where.slice('pty:'.length) });
    assert.equal(login.pubkey, TEST_PUBKEY);
  });

  // Regression: a serial login opened any path: on a shell's terminal it
  // left the line raw and read the person's keystrokes for 10 s.
  test('a serial login opens serial lines only: no one\'s terminal, no FIFO, no file', async () => {
    const ttyFile = path.join(dir, 'shell.tty');
    // A shell's terminal: a pseudo-terminal that controls the process in it.
    const shell = spawn('python3', ['-c', `import pty; pty.spawn(['sh', '-c', 'tty > ${ttyFile}; exec sleep 60'])`],
      { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      const tty = await waitFor(() => {
        try { return readFileSync(ttyFile, 'utf8').trim() || null; } catch { return null; }
      }, 'the shell to name its terminal');
      assert.match(tty, /^\/dev\/pts\/\d+$/);
      const settings = () => execFileSync('stty', ['-a', '-F', tty]).toString();
      const before = settings();
      const refusal = (device) => `device: ${device} is not a serial line this browser may open (a USB or UART serial device such as /dev/ttyACM0 or /dev/ttyUSB0, which is no one's terminal)`;
      const login = (device) => callError(mcp, 'login', { method: 'nsigner', transport: 'serial', device }, 'INVALID_PARAMS');
      assert.equal(await login(tty), refusal(tty));
      assert.equal(settings(), before, 'the terminal is left as it was');
      // A FIFO, a regular file, the terminals that are always someone's, and
      // a path that does not exist: the same refusal.
      const fifo = path.join(dir, 'line.fifo');
      execFileSync('mkfifo', [fifo]);
      const file = path.join(dir, 'line.txt');
      writeFileSync(file, 'not a line');
      for (const device of [fifo, file, '/dev/tty', '/dev/console', '/dev/tty1', path.join(dir, 'missing')]) {
        assert.equal(await login(device), refusal(device));
      }
      assert.equal(await login(`${tty}@9600`), refusal(tty), 'with a speed too');
    } finally {
      shell.kill('SIGKILL');
    }
  });

  test('over qrexec, and a policy refusal', async () => {
    const login = await call('login', { method: 'nsigner', transport: 'qrexec', device: 'vault' });
    assert.equal(login.pubkey, TEST_PUBKEY);
    const refused = await callError(mcp, 'login', { method: 'nsigner', transport: 'qrexec', device: 'denied' }, 'SIGNER_UNAVAILABLE');
    assert.match(refused, /policy refused/);
  });

  test('bad nsigner input names the field', async () => {
    assert.match(await callError(mcp, 'login', { method: 'nsigner', device: '/dev/ttyACM0' }, 'INVALID_PARAMS'), /transport: required/);
    assert.match(await callError(mcp, 'login', { method: 'nsigner', transport: 'serial' }, 'INVALID_PARAMS'), /device: required/);
    assert.match(await callError(mcp, 'login', { method: 'nsigner', transport: 'bluetooth', device: 'x' }, 'INVALID_PARAMS'), /transport/);
    assert.match(await callError(mcp, 'login', { method: 'nsigner', transport: 'unix', device: path.join(dir, 'none.sock') }, 'SIGNER_UNAVAILABLE'), /cannot reach the signer/);
  });

  // Regression: the key a device reported became the identity, unproven.
  // A fake device claiming the person's key then received the plaintext of
  // every encryption the person allowed, and with remember replaced the
  // person's remembered entry.
  test('a device that claims the person\'s key but does not sign with it is refused, and nothing changes', async () => {
    const panel = await connectPanel(browser);
    try {
      await call('switch_identity', { method: 'readonly', npub: OTHER_NPUB });
      const before = await call('login_status');
      const remembered = async () => (await agentCall(panel, 'identity_list')).identities;
      const rememberedBefore = await remembered();
      // Reports the person's key (TEST_PUBKEY) at index 0, holds another.
      const fake = await startEmulator(['--unix', path.join(dir, 'fake.sock'), '--claim', TEST_PUBKEY], { holdTestKey: false });
      emulators.push(fake);
      assert.ok(!fake.keys.includes(TEST_PUBKEY), 'the fake device does not hold the person\'s key');
      const device = { method: 'nsigner', transport: 'unix', device: path.join(dir, 'fake.sock'), remember: true };
      assert.match(await callError(mcp, 'login', device, 'SIGNER_REJECTED'), /does not prove that it holds the key it reports/);
      assert.match(fake.log(), /request login_check/, 'the device was asked to sign the login check');
      await waitFor(() => /session closed/.test(fake.log()), 'the fake device\'s link to close');
      // A device whose person declines the login check: refused too.
      const declining = await startEmulator(['--unix', path.join(dir, 'declining.sock'), '--reject-login']);
      emulators.push(declining);
      const declined = { ...device, device: path.join(dir, 'declining.sock') };
      assert.match(await callError(mcp, 'login', declined, 'SIGNER_REJECTED'), /refused the login check/);
      // Nothing changed: the identity in use, nor what is remembered.
      assert.deepEqual(await call('login_status'), before);
      assert.deepEqual(await remembered(), rememberedBefore);
      // The device that holds the key still logs in (and is remembered).
      const real = await startEmulator(['--unix', path.join(dir, 'real.sock')]);
      emulators.push(real);
      const login = await call('login', { ...device, device: path.join(dir, 'real.sock') });
      assert.equal(login.pubkey, TEST_PUBKEY);
      assert.equal(login.remembered, true);
      assert.deepEqual((await remembered()).map((i) => [i.npub, i.device]), [[TEST_NPUB, path.join(dir, 'real.sock')]]);
      // Someone puts a fake device where the remembered one was: using the
      // remembered identity again asks it for the login check too.
      await call('switch_identity', { method: 'readonly', npub: OTHER_NPUB });
      real.stop();
      const squatter = await startEmulator(['--unix', path.join(dir, 'real.sock'), '--claim', TEST_PUBKEY], { holdTestKey: false });
      emulators.push(squatter);
      assert.match(await callError(mcp, 'login', { method: 'nsigner', remembered: TEST_NPUB }, 'SIGNER_REJECTED'),
        /does not prove that it holds the key it reports/);
      assert.equal((await call('login_status')).npub, OTHER_NPUB);
      await agentCall(panel, 'identity_forget', { npub: TEST_NPUB });
    } finally {
      panel.close();
    }
  });

  test('the same login over /agent', async () => {
    const emu = await startEmulator(['--unix', path.join(dir, 'agent.sock')]);
    emulators.push(emu);
    const agent = await connectAgent(browser);
    try {
      await agentCall(agent, 'logout');
      agentError(await agent.call('get_url'), 'NOT_LOGGED_IN');
      const login = await agentCall(agent, 'login', { method: 'nsigner', transport: 'unix', device: emu.where.slice('unix:'.length) });
      assert.equal(login.pubkey, TEST_PUBKEY);
      assert.equal(typeof (await agentCall(agent, 'get_url')).url, 'string');
    } finally {
      agent.close();
    }
  });
});
