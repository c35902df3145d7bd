// downloads, wait_for_download, download_cancel: a download a page starts
// later is waited for and its bytes read back from the files folder; one
// the server breaks fails and says why, and the browser goes on; one under
// way is cancelled.
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { filesSuite } from './support/session.mjs';
import { callError } from './support/mcp.mjs';
import { patternBytes } from './support/fixture-server.mjs';
import { waitFor } from './support/wait.mjs';

describe('downloads', { timeout: 120_000 }, () => {
  const suite = filesSuite('/downloads.html');
  const { call, logged, dir } = suite;
  let mcp;
  beforeEach(() => { mcp = suite.mcp; });

  it('wait_for_download gets a download a page starts later, its bytes in the files folder', logged(async () => {
    await call('click', { selector: '#later' });
    const download = await call('wait_for_download', { timeout: 20_000 });
    assert.deepEqual([download.name, download.state, download.bytes, download.total], ['later.bin', 'done', 50_000, 50_000]);
    assert.match(download.url, /\/net\/download\?name=later\.bin/);
    assert.equal(path.dirname(download.path), path.join(realpathSync(dir), 'page-downloads'), 'saved in the files folder, in its pages\' place');
    assert.ok(readFileSync(download.path).equals(patternBytes(50_000)), 'the bytes the server sent');
    const listed = (await call('downloads')).downloads.find((d) => d.id === download.id);
    assert.deepEqual(listed, download);
    // Given once: the next wait waits for a new one.
    assert.match(await callError(mcp, 'wait_for_download', { timeout: 300 }, 'TIMEOUT'), /no download ended within 300 ms/);
    // What a page sent is no agent's own content: not a state to load, a route's body or a HAR.
    for (const [tool, args] of [
      ['state_load', { path: download.path }],
      ['network_route', { url: '**/never', action: 'fulfill', body_file: download.path }],
      ['network_route_har', { path: download.path }],
    ]) {
      const why = await callError(mcp, tool, args, 'INVALID_PARAMS');
      assert.match(why, /a page downloaded this file \(page-downloads\/ of the files folder\)/, `${tool}: ${why}`);
    }
  }));

  it('a download the server breaks fails and says why, and the browser goes on', logged(async () => {
    await call('click', { selector: '#broken' });
    const download = await call('wait_for_download', { timeout: 20_000 });
    assert.equal(download.name, 'broken.bin');
    assert.equal(download.state, 'failed');
    assert.ok(download.failure && download.failure.length > 3, JSON.stringify(download));
    assert.ok(download.bytes < 200_000, `${download.bytes} bytes of 200000`);
    // Nothing else broke: the page and this client still answer.
    assert.equal((await call('get_url')).url, suite.fixtures.url('/downloads.html'));
    assert.equal((await call('eval', { script: "document.querySelector('h1').textContent" })).value, 'Downloads');
  }));

  it('download_cancel stops a download under way', logged(async () => {
    await call('click', { selector: '#slow' });
    const running = await waitFor(async () => (await call('downloads')).downloads
      .find((d) => d.name === 'slow.bin' && d.state === 'in_progress' && d.bytes > 0), 'the slow download to be under way');
    assert.equal(running.total, 400_000);
    assert.deepEqual(await call('download_cancel', { id: running.id }), { cancelled: running.id });
    const ended = await call('wait_for_download', { timeout: 20_000 });
    assert.deepEqual([ended.id, ended.state], [running.id, 'failed']);
    assert.match(ended.failure, /cancel/i);
    await callError(mcp, 'download_cancel', { id: running.id }, 'INVALID_PARAMS');
    await callError(mcp, 'download_cancel', { id: 99_999 }, 'INVALID_PARAMS');
  }));
});

describe('downloads past a context\'s quota', { timeout: 120_000 }, () => {
  const suite = filesSuite('/downloads.html', { args: ['--downloads-max-mb', '1'] });
  const { call, logged, dir } = suite;
  const fetchFile = (query) => call('eval', { script: `location.href = '/net/download?${query}'; 1` });

  it('a download past --downloads-max-mb is cancelled and its part removed; the next is refused, saying why', logged(async () => {
    await fetchFile('name=small.bin&size=300000');
    const small = await call('wait_for_download', { timeout: 20_000 });
    assert.deepEqual([small.name, small.state], ['small.bin', 'done']);

    await fetchFile('name=big.bin&size=3000000&chunks=60&every=20');
    const big = await call('wait_for_download', { timeout: 30_000 });
    assert.equal(big.state, 'failed', JSON.stringify(big));
    assert.match(big.failure, /this context's downloads passed 1 MiB this run \(--downloads-max-mb\)/);
    assert.ok(!existsSync(big.path), 'what it wrote is not kept');
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('big')), []);

    await fetchFile('name=after.bin&size=1000');
    const refused = await waitFor(async () => (await call('downloads')).downloads
      .find((d) => d.url.includes('name=after.bin') && d.state === 'failed'), 'the refused download in the list');
    assert.match(refused.failure, /--downloads-max-mb/);
    assert.ok(readFileSync(small.path).equals(patternBytes(300_000)), 'the one within the quota stays');
  }));
});
