// The real applications the tests and the application benchmark drive, each
// started fresh in a folder of its own and served on a loopback port: its
// url(), stop(), and a way to ask the application itself what it holds.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './browser.mjs';
import { PYTHON_ENV, serveDjango, servePython, sqliteQuery } from './python_app.mjs';
import { run } from './run.mjs';

/** The password of `ada`, the user each application starts with. */
export const APP_PASSWORD = 'a-members-password-1859';

const newDir = (name) => mkdtempSync(path.join(tmpdir(), `sovereign-${name}-`));

/** Django's admin over a small library (tests/apps/library), with three books. */
export async function startLibrary() {
  const dir = newDir('library');
  const db = path.join(dir, 'library.sqlite3');
  const served = await serveDjango({
    app: path.join(REPO_ROOT, 'tests/apps/library'),
    env: { LIBRARY_DB: db },
    dir,
    password: APP_PASSWORD,
    ready: '/admin/login/',
    what: 'the library',
  });
  await served.manage('shell', '-c', [
    'from books.models import Book',
    "Book.objects.create(title='Notes on the Analytical Engine', author='Ada Lovelace', genre='history')",
    "Book.objects.create(title='The Raven', author='Edgar Allan Poe', genre='poetry')",
    "Book.objects.create(title='Frankenstein', author='Mary Shelley', genre='novel')",
  ].join('\n'));
  return { ...served, query: sqliteQuery(db) };
}

/** Wagtail over a small site (tests/apps/cms); `media` is where uploads go. */
export async function startCms() {
  const dir = newDir('cms');
  const served = await serveDjango({
    app: path.join(REPO_ROOT, 'tests/apps/cms'),
    env: { CMS_DIR: dir },
    dir,
    password: APP_PASSWORD,
    ready: '/admin/login/',
    what: 'the site',
  });
  return { ...served, query: sqliteQuery(path.join(dir, 'cms.sqlite3')), media: path.join(dir, 'media') };
}

/** The books Datasette publishes. */
export const DATASETTE_BOOKS = [
  ['Notes on the Analytical Engine', 'Ada Lovelace', 1843, 'history'],
  ['The Raven', 'Edgar Allan Poe', 1845, 'poetry'],
  ['Annabel Lee', 'Edgar Allan Poe', 1849, 'poetry'],
  ['The Tell-Tale Heart', 'Edgar Allan Poe', 1843, 'novel'],
  ['Frankenstein', 'Mary Shelley', 1818, 'novel'],
  ['Leaves of Grass', 'Walt Whitman', 1855, 'poetry'],
];

/** Datasette over a new database of books; `api` asks its JSON API. */
export async function startDatasette() {
  const dir = newDir('datasette');
  const db = path.join(dir, 'library.db');
  const made = await run('python3', ['-c', [
    'import json, sqlite3, sys',
    'c = sqlite3.connect(sys.argv[1])',
    "c.execute('create table books (id integer primary key, title text, author text, year integer, genre text)')",
    "c.executemany('insert into books (title, author, year, genre) values (?, ?, ?, ?)', json.loads(sys.argv[2]))",
    'c.commit()',
  ].join('\n'), db, JSON.stringify(DATASETTE_BOOKS)]);
  if (made.code !== 0) throw new Error(`the books database: ${made.stderr}`);
  const served = await servePython({
    args: (port) => ['-m', 'datasette', 'serve', db, '--host', '127.0.0.1', '--port', String(port)],
    ready: '/-/versions.json',
    dir,
    what: 'Datasette',
  });
  return { ...served, api: async (p) => (await fetch(served.url(p))).json() };
}

// Trac's packages have a folder of their own (tests/requirements-trac.txt).
const TRAC_PACKAGES = path.join(REPO_ROOT, 'target/python-trac');
const TRAC_ENV = { ...PYTHON_ENV, PYTHONPATH: TRAC_PACKAGES };

/** A new Trac project behind HTTP authentication (its member `ada` in an htpasswd file). */
export async function startTrac() {
  const dir = newDir('trac');
  const project = path.join(dir, 'project');
  const admin = async (...args) => {
    const out = await run('python3', [path.join(TRAC_PACKAGES, 'bin/trac-admin'), project, ...args],
      { env: { ...process.env, ...TRAC_ENV } });
    if (out.code !== 0) throw new Error(`trac-admin ${args[0]}: ${out.stderr}`);
  };
  await admin('initenv', 'Field station', 'sqlite:db/trac.db');
  await admin('permission', 'add', 'ada', 'TRAC_ADMIN');
  const passwords = path.join(dir, 'htpasswd');
  writeFileSync(passwords, `ada:{SHA}${createHash('sha1').update(APP_PASSWORD).digest('base64')}\n`);
  const served = await servePython({
    args: (port) => [path.join(TRAC_PACKAGES, 'bin/tracd'), '--single-env', '--hostname=127.0.0.1', `--port=${port}`,
      `--basic-auth=*,${passwords},Field station`, project],
    cwd: dir,
    env: TRAC_ENV,
    ready: '/',
    dir,
    what: 'Trac',
  });
  return { ...served, query: sqliteQuery(path.join(project, 'db/trac.db')) };
}
