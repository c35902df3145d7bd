// A real application nobody here wrote: Django's admin (Django from PyPI,
// installed by the test set-up), over a small library of books, served on
// 127.0.0.1. An agent does what a person does there (sign in, add a record
// through its form, find one with the search, edit it, delete with an
// action and its confirmation page, sign out), picking every element by its
// role and name in the snapshot, as a model reads it. Each task is checked
// from the application's side: its database.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { appSuite } from './support/app_suite.mjs';
import { APP_PASSWORD as PASSWORD, startLibrary } from './support/real_apps.mjs';
import { waitFor } from './support/wait.mjs';

describe('a real application: Django\'s admin', { timeout: 300_000 }, () => {
  const suite = appSuite(startLibrary);
  const { test, call, pick } = suite;


  test('signs in with the admin\'s login form', async () => {
    await call('open', { url: suite.app.url('/admin/') });
    await call('fill', { ref: await pick('textbox', /^Username/), value: 'ada' });
    await call('fill', { ref: await pick('textbox', /^Password/), value: PASSWORD });
    await call('click', { ref: await pick('button', 'Log in') });
    await waitFor(async () => (await suite.app.query("select last_login from auth_user where username = 'ada'"))[0][0],
      'the library to record the sign-in');
  });

  test('adds a book through its form: text, a choice, a date', async () => {
    await call('click', { ref: await pick('link', 'Books') });
    await call('click', { ref: await pick('link', /^Add book/) });
    await call('fill', { ref: await pick('textbox', /^Title/), value: 'Leaves of Grass' });
    await call('fill', { ref: await pick('textbox', /^Author/), value: 'Walt Whitman' });
    await call('select', { ref: await pick('combobox', /^Genre/), value: 'Poetry' });
    await call('fill', { ref: await pick('textbox', /^Published|^Date/), value: '1855-07-04' });
    await call('click', { ref: await pick('button', 'Save') });
    const rows = await waitFor(async () => {
      const found = await suite.app.query("select author, genre, published from books_book where title = 'Leaves of Grass'");
      return found.length && found;
    }, 'the book in the library');
    assert.deepEqual(rows, [['Walt Whitman', 'poetry', '1855-07-04']]);
  });

  test('finds a book with the search and edits it', async () => {
    await call('open', { url: suite.app.url('/admin/books/book/') });
    await call('fill', { ref: await pick('textbox', /Search/), value: 'Lovelace' });
    await call('click', { ref: await pick('button', 'Search') });
    await call('click', { ref: await pick('link', 'Notes on the Analytical Engine') });
    await call('fill', { ref: await pick('textbox', /^Notes/), value: 'The first published program.' });
    await call('click', { ref: await pick('button', 'Save') });
    await waitFor(async () => (await suite.app.query("select notes from books_book where author = 'Ada Lovelace'"))[0]?.[0]
      === 'The first published program.', 'the edit in the library');
  });

  test('deletes a book with an action and its confirmation page', async () => {
    await call('open', { url: suite.app.url('/admin/books/book/') });
    await call('click', { ref: await pick('checkbox', /Frankenstein/) });
    await call('select', { ref: await pick('combobox', /^Action/), value: 'Delete selected books' });
    await call('click', { ref: await pick('button', 'Go') });
    await call('click', { ref: await pick('button', /^Yes, I.m sure/) });
    await waitFor(async () => (await suite.app.query("select count(*) from books_book where title = 'Frankenstein'"))[0][0] === 0,
      'the book gone from the library');
    assert.equal((await suite.app.query('select count(*) from books_book'))[0][0], 3, 'the others stay');
  });

  test('signs out', async () => {
    const sessions = async () => (await suite.app.query('select count(*) from django_session'))[0][0];
    assert.equal(await sessions(), 1);
    await call('click', { ref: await pick('button', 'Log out') });
    await waitFor(async () => (await sessions()) === 0, 'the library to end the session');
  });
});
