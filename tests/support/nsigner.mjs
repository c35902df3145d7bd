// The nsigner emulator, a software stand-in for a hardware signer, for the
// tests: started on a transport, it says where it listens and its keys.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './browser.mjs';
import { TEST_NSEC } from './mcp.mjs';

export const EMULATOR = process.env.NSIGNER_EMULATOR
  ?? path.join(path.dirname(process.env.SOVEREIGN_BIN ?? path.join(REPO_ROOT, 'target/debug/sovereign-browser')), 'nsigner-emulator');

/**
 * Starts the emulator; resolves { where, keys, log(), stop() }. It holds the
 * test key at index 0 and a fresh one at 1; with `holdTestKey: false`, two
 * fresh keys (the test key is then not on the device at all).
 */
export function startEmulator(args, { holdTestKey = true } = {}) {
  const held = holdTestKey ? ['--key', TEST_NSEC, '--generate', '1'] : ['--generate', '2'];
  return new Promise((resolve, reject) => {
    const proc = spawn(EMULATOR, [...held, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let log = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => { log += d; });
    const keys = [];
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d) => {
      out += d;
      for (const m of out.matchAll(/key (\d+) ([0-9a-f]{64})/g)) keys[Number(m[1])] = m[2];
      const where = out.match(/listening on (\S+)/);
      if (where && keys.length >= 2) {
        resolve({ where: where[1], keys, log: () => log, stop: () => { proc.kill('SIGKILL'); } });
      }
    });
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`nsigner-emulator exited (${code}): ${out}`)));
  });
}

