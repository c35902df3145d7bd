// The command-line client against the running browser: one tool per run,
// refs as bare words, readable output and --json, exit codes, a batch from
// standard input, and a clear message when no browser runs or the token is
// refused. Refs read as a snapshot prints them (e5), with or without the @.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { browserBinary } from './support/browser.mjs';
import { run } from './support/run.mjs';
import { startLoggedIn } from './support/session.mjs';
import { assertPng } from './support/png.mjs';
import { refOf } from './support/snapshot.mjs';
import { CATALOGUE_SIZE, TEST_NSEC } from './support/mcp.mjs';

const CLI = path.join(path.dirname(browserBinary()), 'sovereign');

/** Runs the client; resolves { code, stdout, stderr }. */
const sovereign = (args, opts) => run(CLI, args, opts);

describe('the sovereign command', { timeout: 120_000 }, () => {
  let session;
  let env;
  let dir;
  before(async () => {
    session = await startLoggedIn();
    env = { SOVEREIGN_ADDR: `127.0.0.1:${session.browser.port}`, SOVEREIGN_TOKEN: session.browser.token };
    dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-cli-'));
  }, { timeout: 90_000 });
  after(async () => {
    await session?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const run = (args, opts = {}) => sovereign(args, { env, ...opts });

  it('opens, snapshots, fills and clicks by ref, reads text', async () => {
    const opened = await run(['open', session.fixtures.url('form.html')]);
    assert.equal(opened.code, 0, opened.stderr);
    assert.match(opened.stdout, /^url: http:\/\/127\.0\.0\.1:\d+\/form\.html\ntitle: Sign up\n/);
    const snap = await run(['snapshot']);
    assert.equal(snap.code, 0);
    assert.match(snap.stdout, /^url: .*\ntitle: Sign up\nheading "Sign up" \[level=1\]\ne\d+ textbox "Name"/, 'the tree, not JSON');
    const name = refOf(snap.stdout, 'textbox', 'Name');
    const filled = await run(['fill', name, 'Typed from a shell']);
    assert.equal(filled.stdout, 'value: Typed from a shell\n');
    const text = await run(['get_text', name]);
    assert.equal(text.stdout.trim(), 'Typed from a shell');
    await run(['check', '#agree']);
    const clicked = await run(['--json', 'click', refOf(snap.stdout, 'button', 'Create account')]);
    assert.equal(clicked.code, 0, clicked.stderr);
    const result = JSON.parse(clicked.stdout);
    assert.equal(result.navigated, true);
    assert.match(result.url, /\/submit/);
  });

  it('writes screenshots to a file and prints its path', async () => {
    const shot = await run(['screenshot', '--out', path.join(dir, 'shot.png')]);
    assert.equal(shot.code, 0, shot.stderr);
    assert.match(shot.stdout, /file: .*shot\.png/);
    assertPng(readFileSync(path.join(dir, 'shot.png')));
  });

  it('exit codes: 1 for a tool error with its code, 2 for usage, 3 without a browser', async () => {
    const stale = await run(['click', 'e99999']);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /^ELEMENT_NOT_FOUND: /);
    for (const args of [['scroll', 'sideways'], ['no_such_tool'], ['open'], ['wait', 'soon'], ['get_url', '--what', '1']]) {
      const usage = await run(args);
      assert.equal(usage.code, 2, `${args.join(' ')}: ${usage.stderr}`);
      assert.match(usage.stderr, /^sovereign: /);
    }
    const none = await sovereign(['get_url'], { env: { SOVEREIGN_ADDR: '127.0.0.1:9', SOVEREIGN_TOKEN: 'x'.repeat(20) } });
    assert.equal(none.code, 3);
    assert.match(none.stderr, /no browser is running at 127\.0\.0\.1:9.*start one with/);
  });

  it('exit code 4 when the browser cannot prove it holds the token (so it is not sent), or none is found', async () => {
    const wrongToken = await sovereign(['get_url'], { env: { ...env, SOVEREIGN_TOKEN: 'not-the-token-at-all' } });
    assert.equal(wrongToken.code, 4, wrongToken.stderr);
    assert.match(wrongToken.stderr, /^sovereign: what listens at 127\.0\.0\.1:\d+ did not prove it is the browser holding this token .*so the token was not sent: the token is not that browser's \(give the one in its profile with --token/);
    assert.doesNotMatch(wrongToken.stderr, /no browser/);
    const noToken = await sovereign(['get_url'], { env: { ...env, SOVEREIGN_TOKEN: '', SOVEREIGN_PROFILE: dir } });
    assert.equal(noToken.code, 4, noToken.stderr);
    assert.match(noToken.stderr, /^sovereign: the browser at .* asks for a token \(401\) and none was found/);
  });

  it('takes the global flags anywhere on the line; after -- every word is the tool\'s', async () => {
    const elsewhere = { SOVEREIGN_ADDR: '127.0.0.1:9', SOVEREIGN_TOKEN: 'not-the-token-at-all' };
    const after = await sovereign(['get_url', '--port', String(session.browser.port), '--token', session.browser.token, '--json'], { env: elsewhere });
    assert.equal(after.code, 0, after.stderr);
    assert.match(JSON.parse(after.stdout).url, /^http/);
    const between = await sovereign(['--json', 'open', '--token', session.browser.token, session.fixtures.url('form.html'), `--addr=127.0.0.1:${session.browser.port}`], { env: elsewhere });
    assert.equal(between.code, 0, between.stderr);
    assert.match(JSON.parse(between.stdout).url, /\/form\.html$/);
    // The word after one of the tool's own flags is its value, whatever it looks like.
    const value = await run(['fill', '#name', '--value', '--json']);
    assert.equal(value.code, 0, value.stderr);
    assert.equal(value.stdout, 'value: --json\n');
    const ended = await run(['fill', '#name', '--', '--token', 'x']);
    assert.equal(ended.code, 2);
    assert.match(ended.stderr, /^sovereign: fill has no parameter --token; it takes /);
    const help = await run(['click', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^click: /);
  });

  it('reports an unknown flag as a flag, with exit code 2', async () => {
    for (const args of [['--bogus', 'get_url'], ['-x']]) {
      const bad = await run(args);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /^sovereign: unknown flag -(-bogus|x); the flags are --addr, --port, --token, --profile, --json, --out, --help \(`sovereign --help`\)/);
      assert.doesNotMatch(bad.stderr, /no tool/);
    }
  });

  it('takes the login method as its first bare word', async () => {
    const login = await run(['login', 'local', '--nsec', TEST_NSEC]);
    assert.equal(login.code, 0, login.stderr);
    const wrong = await run(['login', 'sideways']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /^sovereign: --method must be one of local, seed, readonly, nip46, nsigner, got "sideways"/);
  });

  it('writes refs as the snapshot prints them, and takes e5, @e5 and [ref=e5]', async () => {
    const usage = await run(['--help']);
    assert.equal(usage.code, 0);
    assert.match(usage.stdout, /sovereign click e3/);
    assert.match(usage.stdout, /Exit codes: 0 done, 1 the tool failed, 2 usage error, 3 no browser reachable,\s+4 the browser refused the token/);
    assert.doesNotMatch(usage.stdout.replace('(@e5 and [ref=e5] are taken too)', ''), /@e\d/);
    for (const written of ['e99999', '@e99999', '[ref=e99999]', 'ref=e99999']) {
      const missing = await run(['click', written]);
      assert.equal(missing.code, 1, `${written}: ${missing.stderr}`);
      assert.equal(missing.stderr, 'ELEMENT_NOT_FOUND: unknown ref e99999: no element has it; take a snapshot to get refs\n', written);
    }
    await run(['open', session.fixtures.url('form.html')]);
    const snap = await run(['snapshot']);
    const name = refOf(snap.stdout, 'textbox', 'Name');
    const filled = await run(['fill', `[ref=${name}]`, 'by the printed ref']);
    assert.equal(filled.code, 0, filled.stderr);
    await run(['open', session.fixtures.url('form.html?again')]);
    const stale = await run(['fill', name, 'too late']);
    assert.equal(stale.code, 1);
    assert.equal(stale.stderr, `STALE_REF: ref ${name} no longer exists (the page changed); take a new snapshot\n`);
  });

  it('lists the tools and explains one', async () => {
    const tools = await run(['tools']);
    assert.equal(tools.stdout.trim().split('\n').length, CATALOGUE_SIZE);
    const help = await run(['help', 'type']);
    assert.match(help.stdout, /--value <string, required>/);
    // A choice is shown as its words.
    const fill = await run(['help', 'fill']);
    assert.match(fill.stdout, /--field <user\|password\|totp>/);
  });

  it('runs a batch from standard input over one connection', async () => {
    const input = [
      `open ${session.fixtures.url('form.html')}`,
      '# a comment',
      `fill '#name' "Batch of 'three'"`,
      'get_value #name',
      '',
    ].join('\n');
    const batch = await run(['-'], { input });
    assert.equal(batch.code, 0, batch.stderr);
    assert.match(batch.stdout, /value: Batch of 'three'\n$/);
    const failing = await run(['-'], { input: 'get_url\nclick e99999\nget_title\n' });
    assert.equal(failing.code, 1, 'stops at the failing line');
    assert.doesNotMatch(failing.stdout, /title:/);
  });

  it('checks every line of a batch before it runs the first', async () => {
    await run(['open', session.fixtures.url('form.html')]);
    const input = [`open ${session.fixtures.url('form.html?from=batch')}`, 'get_url', 'scroll sideways', 'get_title', ''].join('\n');
    const batch = await run(['-'], { input });
    assert.equal(batch.code, 2);
    assert.equal(batch.stdout, '', 'no line ran');
    assert.match(batch.stderr, /^sovereign: line 3: --direction must be one of .*; nothing was run\n$/);
    const url = await run(['get_url']);
    assert.doesNotMatch(url.stdout, /from=batch/);
  });
});
