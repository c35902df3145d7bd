// The test bunker (rust-nostr's remote signer on a local relay), built as
// the test_bunker example next to the browser binary.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './browser.mjs';

const BIN_DIR = path.dirname(process.env.SOVEREIGN_BIN ?? path.join(REPO_ROOT, 'target/debug/sovereign-browser'));
export const BUNKER = process.env.TEST_BUNKER ?? path.join(BIN_DIR, 'examples', 'test_bunker');

/** Starts the test bunker; resolves { url, user, approve?, stop }. */
export function startBunker(args = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BUNKER, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d) => {
      out += d;
      const url = out.match(/test-bunker: url (\S+)/)?.[1];
      const user = out.match(/test-bunker: user ([0-9a-f]{64})/)?.[1];
      const approve = out.match(/test-bunker: approve (\S+)/)?.[1];
      // The URL is printed once the bunker listens on its relay.
      if (url && user && (approve || !args.includes('--auth-url'))) {
        resolve({ url, user, approve, stop: () => proc.kill('SIGKILL') });
      }
    });
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`test_bunker exited (${code}): ${out}`)));
  });
}
