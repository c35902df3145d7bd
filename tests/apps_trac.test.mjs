// A real application nobody here wrote: Trac, an issue tracker with a wiki
// (from PyPI, installed by the test set-up), served by its own server on
// 127.0.0.1 behind HTTP authentication. An agent does what a project's
// member does there: signs in through the site's password prompt, files a
// ticket through its form and attaches a file to it, edits a wiki page,
// finds the ticket with the site's search, and resolves it. Every element
// is picked by its role and name in the snapshot, as a model reads it;
// every task is checked from the application's side: its database.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { appSuite } from './support/app_suite.mjs';
import { APP_PASSWORD as PASSWORD, startTrac } from './support/real_apps.mjs';
import { callError } from './support/mcp.mjs';
import { waitFor } from './support/wait.mjs';

describe('a real application: Trac', { timeout: 300_000 }, () => {
  const suite = appSuite(startTrac);
  const { test, call, pick } = suite;
  const ticket = async () => (await suite.app.query(
    'select id, summary, description, type, priority, component, status, resolution from ticket'))[0];

  test('signs in through the site\'s password prompt', async () => {
    await call('open', { url: suite.app.url('/') });
    const login = await pick('link', 'Login');
    // The site asks for a password: the agent hears why, and how to answer.
    const why = await callError(suite.mcp, 'click', { ref: login }, 'NAVIGATION_FAILED');
    assert.match(why, /realm "Field station".*set_credentials/);
    // Its prompt lies over the page: a click now is refused at once, saying why.
    const again = await callError(suite.mcp, 'click', { ref: login }, 'NOT_INTERACTABLE');
    assert.match(again, /prompt over the page.*set_credentials/);
    await call('set_credentials', { user: 'ada', pass: PASSWORD });
    await call('open', { url: suite.app.url('/login') });
    await pick('button', 'Logout');
    const signedIn = await suite.app.query('select name from auth_cookie');
    assert.deepEqual(signedIn, [['ada']]);
  });

  test('files a ticket through its form and attaches a file', async () => {
    await call('click', { ref: await pick('link', 'New Ticket') });
    await call('fill', { ref: await pick('textbox', /^Summary/), value: 'Swallow nest boxes need new roofs' });
    await call('fill', { ref: await pick('textbox', /^Description/), value: 'Three of the boxes by the barn leak.' });
    await call('select', { ref: await pick('combobox', /^Type/), value: 'task' });
    await call('select', { ref: await pick('combobox', /^Priority/), value: 'minor' });
    await call('select', { ref: await pick('combobox', /^Component/), value: 'component2' });
    await call('click', { ref: await pick('checkbox', 'I have files to attach to this ticket') });
    await call('click', { ref: await pick('button', 'Create ticket') });
    const filed = await waitFor(ticket, 'the ticket in the tracker');
    assert.deepEqual(filed.slice(1), ['Swallow nest boxes need new roofs', 'Three of the boxes by the barn leak.',
      'task', 'minor', 'component2', 'new', null]);
    // The tracker goes on to its attachment form.
    const files = (await call('login_status')).files_folder;
    const list = 'box 3: roof split\nbox 5: roof gone\nbox 8: roof loose\n';
    writeFileSync(path.join(files, 'boxes.txt'), list);
    await call('upload', { ref: await pick('button', /^File/), files: [path.join(files, 'boxes.txt')] });
    await call('fill', { ref: await pick('textbox', /^Description/), value: 'Which boxes' });
    await call('click', { ref: await pick('button', 'Add attachment') });
    const attached = await waitFor(async () => (await suite.app.query(
      'select id, filename, size, description, author from attachment'))[0], 'the attachment in the tracker');
    assert.deepEqual(attached, [String(filed[0]), 'boxes.txt', list.length, 'Which boxes', 'ada']);
  });

  test('edits a wiki page', async () => {
    await call('click', { ref: await pick('link', 'Wiki') });
    await call('click', { ref: await pick('button', 'Edit this page') });
    // The page's text has no name of its own: the one unnamed text box.
    await call('fill', { ref: await pick('textbox', /^$/), value: '= Field station =\nNest box survey: see the tickets.' });
    await call('fill', { ref: await pick('textbox', /^Comment/), value: 'A start page of our own' });
    await call('click', { ref: await pick('button', 'Submit changes') });
    const page = await waitFor(async () => {
      const [newest] = await suite.app.query(
        "select version, author, text, comment from wiki where name = 'WikiStart' order by version desc");
      return newest[0] > 1 && newest;
    }, 'the new version of the page');
    // A form sends a text area's lines ended by CR LF, as every browser does.
    assert.deepEqual(page.slice(1), ['ada', '= Field station =\r\nNest box survey: see the tickets.', 'A start page of our own']);
  });

  test('finds the ticket with the search and resolves it', async () => {
    await call('fill', { ref: await pick('textbox', /^Search/), value: 'nest boxes' });
    await call('click', { ref: await pick('button', 'Search') });
    await call('click', { ref: await pick('link', /Swallow nest boxes need new roofs/) });
    // The ticket's fields and actions are folded away under their heading.
    await call('click', { ref: await pick('link', 'Modify Ticket') });
    await call('click', { ref: await pick('radio', 'resolve') });
    // "resolve as [fixed]": the menu has no name of its own, and opens once the action is chosen.
    await call('select', { ref: await pick('combobox', /^$/), value: 'wontfix' });
    await call('select', { ref: await pick('combobox', /^$/), value: 'fixed' });
    await call('fill', { ref: await pick('textbox', 'You may use WikiFormatting here.'), value: 'New roofs on all three.' });
    await call('click', { ref: await pick('button', 'Submit changes') });
    await waitFor(async () => (await ticket())[6] === 'closed', 'the ticket closed');
    assert.equal((await ticket())[7], 'fixed');
    const comment = await suite.app.query("select newvalue from ticket_change where field = 'comment'");
    assert.deepEqual(comment, [['New roofs on all three.']]);
  });
});
