// The files folder's own walls against other local users: a new folder is
// owner-only, and so is every file the browser writes into it (response
// bodies, PDFs, downloads, state files), since the folder may lie outside
// the owner-only profile. A folder inside the profile is refused.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, callError, callJson, connectMcp } from './support/mcp.mjs';

const mode = (file) => statSync(file).mode & 0o777;
const octal = (m) => `0${m.toString(8)}`;

describe('the files folder', { timeout: 180_000 }, () => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'sovereign-files-folder-'));
  const folder = path.join(top, 'new', 'files');
  let browser;
  let fixtures;
  let mcp;
  const call = (tool, args = {}) => callJson(mcp, tool, args);
  const logged = (fn) => withBrowserLog(() => browser, fn);

  before(async () => {
    fixtures = await startFixtureServer();
    browser = await startBrowser({ args: ['--files-dir', folder] });
    mcp = await connectMcp(browser);
    await call('login', { method: 'local', nsec: TEST_NSEC });
  }, { timeout: 90_000 });
  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
    await fixtures?.close();
    rmSync(top, { recursive: true, force: true });
  });

  // Regression: a new --files-dir was created with the default
  // permissions, and bodies, PDFs and downloads were written 0644.
  it('is created owner-only, and so is every file written into it', { timeout: 60_000 }, logged(async () => {
    assert.equal(octal(mode(folder)), '0700', 'the new folder');

    await call('open', { url: fixtures.url('/net/pixel.png') });
    const { requests } = await call('network_requests');
    const image = requests.find((r) => r.url.endsWith('/net/pixel.png'));
    assert.ok(image, JSON.stringify(requests));
    const body = await call('network_request', { id: image.id });
    assert.ok(body.body_path?.startsWith(folder), JSON.stringify(body));

    await call('open', { url: fixtures.url('form.html') });
    const pdf = (await call('pdf', { path: path.join(folder, 'page.pdf') })).path;
    const download = (await call('open', { url: fixtures.url('report.bin') })).downloads?.[0];
    assert.equal(download?.state, 'done', JSON.stringify(download));
    const state = (await call('state_save', { path: path.join(folder, 'state.json') })).path;

    for (const [what, file] of [['a response body', body.body_path], ['a PDF', pdf], ['a download', download.path], ['a state file', state]]) {
      assert.ok(file.startsWith(folder), `${what} is in the folder: ${file}`);
      assert.equal(octal(mode(file)), '0600', `${what} is owner-only: ${file}`);
    }
  }));

  it('takes no new file once it holds --files-max-mb, saying so, until room is made', { timeout: 60_000 }, async () => {
    const full = path.join(top, 'full');
    mkdirSync(full, { recursive: true });
    const bounded = await startBrowser({ args: ['--files-dir', full, '--files-max-mb', '1'] });
    try {
      const agent = await connectMcp(bounded);
      await callJson(agent, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(agent, 'open', { url: fixtures.url('form.html') });
      assert.ok((await callJson(agent, 'pdf', { path: path.join(full, 'first.pdf') })).path);
      writeFileSync(path.join(full, 'big.bin'), Buffer.alloc(2 << 20));
      const why = await callError(agent, 'pdf', { path: path.join(full, 'second.pdf') }, 'INVALID_PARAMS');
      assert.match(why, /the files folder holds 2 MiB, its most \(--files-max-mb 1\)/);
      await callError(agent, 'state_save', { path: path.join(full, 'state.json') }, 'INVALID_PARAMS');
      rmSync(path.join(full, 'big.bin'));
      assert.ok((await callJson(agent, 'pdf', { path: path.join(full, 'second.pdf') })).path, 'room again');
      await agent.close();
    } finally {
      await bounded.stop();
    }
  });

  // Regression: a folder inside the profile was accepted, giving agents'
  // file tools its cookie jar and site data.
  it('may not lie inside the profile', { timeout: 60_000 }, async () => {
    const profile = path.join(top, 'profile');
    mkdirSync(profile, { recursive: true });
    const started = await startBrowser({
      baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile, '--files-dir', path.join(profile, 'webdata')],
    }).catch((error) => error);
    if (!(started instanceof Error)) await started.stop();
    assert.ok(started instanceof Error, 'the browser refused to start');
    assert.match(started.message, /inside the profile/);
  });
});
