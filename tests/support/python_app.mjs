// A real application written in Python, served on a loopback port for a
// test: started with the tests' Python packages (target/python-tests),
// answered once a page of it is served, stopped with its folder.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './browser.mjs';
import { freePort } from './podman.mjs';
import { run } from './run.mjs';
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

/** Runs a query on a SQLite database: its rows, as JSON values. */
export function sqliteQuery(db) {
  return async (sql) => {
    const out = await run('python3', ['-c',
      'import json, sqlite3, sys; print(json.dumps(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchall()))', db, sql]);
    if (out.code !== 0) throw new Error(`query on ${db} failed: ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
}

/**
 * A Django project in `app` (its manage.py), migrated, with a superuser
 * `ada` whose password is `password`, served on a loopback port; `env` says
 * where its data lives (in `dir`, removed on stop). `manage(...args)` runs
 * another command of it.
 */
export async function serveDjango({ app, env, dir, password, ready, what }) {
  const all = {
    ...PYTHON_ENV,
    ...env,
    DJANGO_SUPERUSER_USERNAME: 'ada',
    DJANGO_SUPERUSER_PASSWORD: password,
    DJANGO_SUPERUSER_EMAIL: 'ada@example.org',
  };
  const manage = async (...args) => {
    const out = await run('python3', ['manage.py', ...args], { env: all, cwd: app });
    if (out.code !== 0) throw new Error(`manage.py ${args[0]} (${what}) failed: ${out.stderr}`);
    return out.stdout;
  };
  await manage('migrate', '--noinput');
  await manage('createsuperuser', '--noinput');
  const served = await servePython({
    args: (port) => ['manage.py', 'runserver', `127.0.0.1:${port}`, '--noreload'],
    cwd: app,
    env: all,
    ready,
    dir,
    what,
  });
  return { ...served, manage };
}
