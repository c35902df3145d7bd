// A real application nobody here wrote: Wagtail, a content management
// system (from PyPI, installed by the test set-up), over a small site served
// on 127.0.0.1. An agent does what an editor does there: signs in, writes an
// article in Wagtail's rich-text editor (Draftail, a Draft.js editor that
// keeps its own model of the text and the selection) and publishes it from
// the footer's menu, adds images from its image library's upload button (a
// file input laid unseen over a button, replaced after every upload), edits
// the article, and deletes it from the page listing's menu and its
// confirmation page. Every element is picked by its role and name in the
// snapshot, as a model reads it; every task is checked from the
// application's side: its database and its media folder.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './support/browser.mjs';
import { appSuite } from './support/app_suite.mjs';
import { APP_PASSWORD as PASSWORD, startCms } from './support/real_apps.mjs';
import { snapshotNodes } from './support/pick.mjs';
import { waitFor } from './support/wait.mjs';

const IMAGE = path.join(REPO_ROOT, 'tests/fixtures/swallow.png');
const ARTICLE = "select p.title, p.live, a.summary, a.body from wagtailcore_page p join articles_articlepage a on a.page_ptr_id = p.id";

describe('a real application: Wagtail', { timeout: 300_000 }, () => {
  const suite = appSuite(startCms);
  const { test, call, pick } = suite;
  const published = async (title) => {
    const rows = await suite.app.query(`${ARTICLE} where p.title = '${title}' and p.live = 1 and p.has_unpublished_changes = 0`);
    return rows.length === 1 && rows[0];
  };


  test('signs in', async () => {
    await call('open', { url: suite.app.url('/admin/') });
    await call('fill', { ref: await pick('textbox', /^Username/), value: 'ada' });
    await call('fill', { ref: await pick('textbox', /^Password/), value: PASSWORD });
    await call('click', { ref: await pick('button', 'Sign in') });
    await waitFor(async () => (await suite.app.query("select last_login from auth_user where username = 'ada'"))[0][0],
      'the site to record the sign-in');
  });

  test('writes an article in the rich-text editor and publishes it from the menu', async () => {
    await call('click', { ref: await pick('button', 'Pages') });
    await call('click', { ref: await pick('link', 'Welcome to your new Wagtail site!') });
    await call('click', { ref: await pick('link', 'Add child page') });
    await call('fill', { ref: await pick('textbox', /^Title/), value: 'Spring migration' });
    await call('fill', { ref: await pick('textbox', 'Summary'), value: 'First sightings' });
    // The editor's text box has no name of its own (its label points at a hidden
    // input): the one unnamed text box, under the "Body" heading.
    const body = await pick('textbox', /^$/);
    const filled = await call('fill', { ref: body, value: 'The swallows came back on the ninth.' });
    assert.match(filled.value, /The swallows came back on the ninth\./, 'the editor shows the text');
    // Again, over the text there: the editor replaces it, as select-all and typing would.
    await call('fill', { ref: body, value: 'The swallows came back on the tenth.' });
    await call('click', { ref: await pick('button', 'More actions') });
    await call('click', { ref: await pick('button', 'Publish') });
    const [, , summary, html] = await waitFor(() => published('Spring migration'), 'the article published');
    assert.equal(summary, 'First sightings');
    assert.match(html, /^<p[^>]*>The swallows came back on the tenth\.<\/p>$/, 'the body, as the editor saved it');
  });

  test('adds images with the library\'s upload button', async () => {
    const files = (await call('login_status')).files_folder;
    copyFileSync(IMAGE, path.join(files, 'swallow.png'));
    copyFileSync(IMAGE, path.join(files, 'swift.png'));
    await call('click', { ref: await pick('link', 'Images') });
    await call('click', { ref: await pick('link', 'Add an image') });
    // The button a person sees; the page's file input lies unseen over it.
    const button = await pick('button', 'Or choose from your computer');
    const first = await call('upload', { ref: button, files: [path.join(files, 'swallow.png')] });
    assert.deepEqual(first.files.map((f) => f.name), ['swallow.png']);
    // The page replaced its input after the first upload: the same button still works.
    const second = await call('upload', { ref: button, files: [path.join(files, 'swift.png')] });
    assert.deepEqual(second.files.map((f) => f.name), ['swift.png']);
    const images = await waitFor(async () => {
      const rows = await suite.app.query('select title, file from wagtailimages_image order by id');
      return rows.length === 2 && rows;
    }, 'both images in the library');
    assert.deepEqual(images.map(([title]) => title), ['swallow', 'swift']);
    for (const [, file] of images) assert.ok(existsSync(path.join(suite.app.media, file)), `${file} is stored`);
  });

  test('edits the article: a new title, an image from the editor\'s chooser dialog; publishes the change', async () => {
    await call('click', { ref: await pick('button', 'Pages') });
    await call('click', { ref: await pick('link', 'Welcome to your new Wagtail site!') });
    await call('click', { ref: await pick('link', 'Spring migration') });
    await call('fill', { ref: await pick('textbox', /^Title/), value: 'Spring migration, 2026' });
    // In the editor: its block menu, then the image library's chooser in a dialog.
    await call('click', { ref: await pick('textbox', /^$/) });
    await call('click', { ref: await pick('button', 'Insert a block') });
    await call('click', { ref: await pick('option', 'Image') });
    await call('click', { ref: await pick('link', /^swallow/) });
    await call('click', { ref: await pick('radio', 'Full width') });
    await call('fill', { ref: await pick('textbox', 'Alt text'), value: 'A swallow on a roof' });
    await call('click', { ref: await pick('button', 'Insert image') });
    // The dialog asks the site for the image's embed, and closes as the editor takes it.
    await waitFor(async () => !(await snapshotNodes(suite.mcp)).some((n) => n.name === 'Insert image'), 'the dialog to close');
    await call('click', { ref: await pick('button', 'More actions') });
    await call('click', { ref: await pick('button', 'Publish') });
    const [, , , html] = await waitFor(() => published('Spring migration, 2026'), 'the new title published');
    const [[image]] = await suite.app.query("select id from wagtailimages_image where title = 'swallow'");
    const embed = /<embed [^>]*>/.exec(html)?.[0] ?? '';
    for (const attribute of ['embedtype="image"', 'format="fullwidth"', `id="${image}"`, 'alt="A swallow on a roof"']) {
      assert.ok(embed.includes(attribute), `the image, as the editor saved it, has ${attribute}: ${html}`);
    }
    assert.match(html, /The swallows came back on the tenth\./, 'the text stays');
    const revisions = await suite.app.query("select count(*) from wagtailcore_revision where object_str like 'Spring migration%'");
    assert.ok(revisions[0][0] >= 2, 'each publication is a revision');
  });

  test('adds a second article and puts it first by dragging in the listing\'s order', async () => {
    // Publishing ended on the home page's listing of its pages.
    await call('click', { ref: await pick('link', 'Add child page') });
    await call('fill', { ref: await pick('textbox', /^Title/), value: 'Autumn migration' });
    await call('click', { ref: await pick('button', 'More actions') });
    await call('click', { ref: await pick('button', 'Publish') });
    await waitFor(() => published('Autumn migration'), 'the second article published');
    // The listing in the pages' own order, whose rows have drag handles.
    await call('click', { ref: await pick('button', 'Actions') });
    await call('click', { ref: await pick('link', 'Sort menu order') });
    const dragged = await call('drag', { src_ref: await pick('button', 'Drag Item 2 of 2'), tgt_ref: await pick('button', 'Drag Item 1 of 2') });
    assert.equal(dragged.dragged, true);
    const order = "select title from wagtailcore_page where depth = 3 order by path";
    await waitFor(async () => (await suite.app.query(order)).map(([t]) => t).join(' / ') === 'Autumn migration / Spring migration, 2026',
      'the site to keep the new order');
  });

  test('deletes the article from the listing\'s menu and its confirmation page', async () => {
    await call('click', { ref: await pick('button', "More options for 'Spring migration, 2026'") });
    await call('click', { ref: await pick('link', /^Delete/) });
    await call('click', { ref: await pick('button', /^Yes, delete/) });
    await waitFor(async () => (await suite.app.query("select count(*) from wagtailcore_page where title like 'Spring%'"))[0][0] === 0,
      'the article gone from the site');
    assert.deepEqual(await suite.app.query('select title from wagtailcore_page order by path'),
      [['Root'], ['Welcome to your new Wagtail site!'], ['Autumn migration']], 'the other pages stay');
  });
});
