// A real application written in Python, served on a loopback port for a
// test: started with the tests' Python packages (target/python-tests),
// answered once a page of it is served, stopped with its folder.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './browser.mjs';
import { freePort } from './podman.mjs';
import { waitFor } from './wait.mjs';

/** The environment the tests' Python packages need. */
export const PYTHON_ENV = {
  PYTHONPATH: path.join(REPO_ROOT, 'target/python-tests'),
  PYTHONDONTWRITEBYTECODE: '1',
};

/**
 * Runs `python3 ...args(port)` in `cwd` with `env`, and resolves once
 * `ready` (a path) answers; `dir` (its data) is removed on stop.
 */
export async function servePython({ args, cwd, env = {}, ready, dir, what }) {
  const port = await freePort();
  const server = spawn('python3', args(port), {
    cwd, env: { ...process.env, ...PYTHON_ENV, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  server.stderr.resume();
  const url = (p) => `http://127.0.0.1:${port}${p}`;
  await waitFor(async () => (await fetch(url(ready)).catch(() => null))?.ok, `${what} to serve`, 60_000);
  return {
    url,
    stop() {
      server.kill('SIGTERM');
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
