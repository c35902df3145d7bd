// A real application nobody here wrote: Datasette (from PyPI, installed by
// the test set-up), publishing a small SQLite database on 127.0.0.1. An
// agent explores it as a person does (a filter built from its column and
// operator menus, a suggested facet and one of its values, a sort by a
// column's header, a query of its own in the SQL editor), picking every
// element by its role and name in the snapshot, and reads the answer from
// the page as a model would. Each answer is checked against the
// application's own JSON API.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { appSuite } from './support/app_suite.mjs';
import { startDatasette } from './support/real_apps.mjs';
import { snapshotNodes } from './support/pick.mjs';
import { waitFor } from './support/wait.mjs';

describe('a real application: Datasette', { timeout: 300_000 }, () => {
  const suite = appSuite(startDatasette);
  const { test, call, pick } = suite;
  const nodes = () => snapshotNodes(suite.mcp);
  /** How many rows the page says it shows (a heading "N rows ..." or "... returning N rows"), once it says `what`. */
  async function rowsShown(what) {
    const count = /(?:^|returning )(\d+) rows?\b/;
    const heading = await waitFor(async () => (await nodes())
      .find((n) => n.role === 'heading' && count.test(n.name ?? '') && what.test(n.name)), `a heading of rows ${what}`);
    return Number(count.exec(heading.name)[1]);
  }


  test('filters the table with its column and operator menus', async () => {
    await call('open', { url: suite.app.url('/library/books') });
    await call('select', { ref: await pick('combobox', null), value: 'author' });
    await call('fill', { ref: await pick('textbox'), value: 'Edgar Allan Poe' });
    await call('click', { ref: await pick('button', 'Apply') });
    const shown = await rowsShown(/where author = "Edgar Allan Poe"/);
    const answer = await suite.app.api('/library/books.json?_shape=array&author=Edgar+Allan+Poe');
    assert.equal(shown, answer.length);
    assert.equal(shown, 3);
  });

  test('opens a suggested facet and one of its values', async () => {
    await call('open', { url: suite.app.url('/library/books') });
    await call('click', { ref: await pick('link', 'genre') });
    await call('click', { ref: await pick('link', /^poetry\b/) });
    const shown = await rowsShown(/where genre = "poetry"/);
    assert.equal(shown, (await suite.app.api('/library/books.json?_shape=array&genre=poetry')).length);
  });

  test('sorts by a column\'s header', async () => {
    await call('open', { url: suite.app.url('/library/books') });
    const headers = (await nodes()).filter((n) => n.ref && n.role === 'link' && n.name === 'year');
    // The column's header is the last link named so (the first is a suggested facet).
    await call('click', { ref: headers.at(-1).ref });
    await waitFor(async () => /_sort=year/.test((await call('get_url')).url), 'the sorted page');
    const firstRow = (await nodes()).find((n) => n.ref && n.role === 'link' && /^\d+$/.test(n.name ?? ''));
    const answer = await suite.app.api('/library/books.json?_shape=array&_sort=year');
    assert.equal(Number(firstRow.name), answer[0].id, 'the first row is the earliest book');
  });

  test('runs a query of its own in the SQL editor', async () => {
    await call('open', { url: suite.app.url('/library/books') });
    await call('click', { ref: await pick('link', /View and edit SQL/) });
    const sql = "select author, count(*) as books from books group by author order by books desc";
    // The editor is CodeMirror: its textbox is a hidden field under the
    // drawn code, and it keeps its own text. So the agent focuses it,
    // selects all with the keyboard and types over it, as a person would.
    await call('focus', { ref: await pick('textbox') });
    await call('press', { key: 'Control+a' });
    await call('insert_text', { value: sql });
    await call('click', { ref: await pick('button', /^Run SQL/) });
    const shown = await rowsShown(/^Custom SQL query returning/);
    const answer = await suite.app.api(`/library.json?_shape=array&sql=${encodeURIComponent(sql)}`);
    assert.equal(shown, answer.length);
    assert.equal(answer[0].author, 'Edgar Allan Poe');
  });
});
