// A flow an agent did over MCP (sign in, shop, check out), recorded,
// exported and done again with no model: green on the same pages, green on
// pages whose markup moved (other ids, order, wrappers), and stopped with a
// report at the step whose button is missing. Its Playwright export runs
// green under @playwright/test in Debian's Chromium. No secret the agent
// typed appears in a recording, a flow or a test.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, browserBinary, startBrowser, withBrowserLog } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { TEST_NSEC, callJson, callText, connectMcp } from './support/mcp.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { assertPng } from './support/png.mjs';
import { refOf } from './support/snapshot.mjs';
import { filesUnder, run } from './support/run.mjs';
import { waitFor } from './support/wait.mjs';

const CLI = path.join(path.dirname(browserBinary()), 'sovereign');
const SHOP = path.join(REPO_ROOT, 'tests', 'fixtures', 'shop');
const PASSWORD = 'open sesame';
const CHROMIUM = '/usr/bin/chromium';


describe('flows: recorded, exported, replayed without a model', { timeout: 300_000 }, () => {
  let dir;
  let profile;
  let browser;
  let mcp;
  let env;
  const sites = {};
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-replay-'));
    profile = path.join(dir, 'profile');
    // A variant holds only the pages it changes; the others are the same pages'.
    for (const variant of ['same', 'moved', 'missing']) {
      sites[variant] = await startFixtureServer({ root: [path.join(SHOP, variant), path.join(SHOP, 'same')] });
    }
    browser = await startBrowser({ baseArgs: ['--headless', '--no-panel', '--port', '0', '--profile', profile] });
    mcp = await connectMcp(browser, { name: 'shopping-agent' });
    env = { SOVEREIGN_ADDR: `127.0.0.1:${browser.port}`, SOVEREIGN_TOKEN: browser.token, SOVEREIGN_PROFILE: profile };
  }, { timeout: 90_000 });
  after(async () => {
    await mcp?.close().catch(() => {});
    await browser?.stop();
    for (const site of Object.values(sites)) await site.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const sovereign = (args) => run(CLI, args, { env });
  const logged = (fn) => withBrowserLog(() => browser, fn);
  const flowFile = () => path.join(dir, 'shop.flow.json');
  const orderShown = async () => (await callText(mcp, 'get_text', { selector: '#order' })).trim();

  it('an agent\'s flow is exported as steps that name elements by what they were, with no secret', { timeout: 60_000 }, logged(async () => {
    const call = (tool, args) => callJson(mcp, tool, args);
    await call('login', { method: 'local', nsec: TEST_NSEC });
    await call('open', { url: sites.same.url('/signin.html') });
    let snap = await callText(mcp, 'snapshot');
    await call('fill', { ref: refOf(snap, 'textbox', 'Email'), value: 'ada@example.org' });
    await call('fill', { ref: refOf(snap, null, 'Password'), value: PASSWORD });
    await call('click', { ref: refOf(snap, 'button', 'Sign in') });
    await call('wait_for_url', { url_pattern: '**/shop.html' });
    snap = await callText(mcp, 'snapshot');
    await call('click', { ref: refOf(snap, 'button', 'Add Tea to cart') });
    await call('click', { ref: refOf(snap, 'link', 'Checkout') });
    snap = await callText(mcp, 'snapshot');
    await call('fill', { ref: refOf(snap, 'textbox', 'Full name'), value: 'Ada Lovelace' });
    await call('select', { ref: refOf(snap, 'combobox', 'Country'), value: 'Japan' });
    await call('check', { ref: refOf(snap, 'checkbox', 'I accept the terms') });
    await call('click', { ref: refOf(snap, 'button', 'Place order') });
    assert.equal(await orderShown(), 'ada@example.org / tea / Ada Lovelace / Japan');

    // The recording is written off the reply path: export once its last step is on disk.
    const exported = await waitFor(async () => {
      const out = await sovereign(['record', 'export', 'last', '--out', flowFile()]);
      return out.code === 0 && readFileSync(flowFile(), 'utf8').includes('Place order') && out;
    }, 'the recorded flow on disk');
    assert.match(exported.stdout, /^11 steps of session \S+ in /);
    const flow = JSON.parse(readFileSync(flowFile(), 'utf8'));
    assert.deepEqual(flow.steps.map((s) => s.tool), [
      'open', 'fill', 'fill', 'click', 'wait_for_url', 'click', 'click', 'fill', 'select', 'check', 'click',
    ], 'the actions in order; reads and the login left out');
    const click = flow.steps.find((s) => s.target?.name === 'Add Tea to cart');
    assert.deepEqual(click.target, { role: 'button', name: 'Add Tea to cart', testid: 'add-tea' });
    const password = flow.steps.find((s) => s.target?.name === 'Password').value;
    assert.deepEqual(password, { param: 'password', secret: true });
    assert.equal(flow.steps.find((s) => s.target?.name === 'Sign in').expect.url, sites.same.url('/shop.html'));
    assert.ok(!JSON.stringify(flow).includes('"ref"'), 'no old ref');
  }));

  it('replays green on the same pages, and on pages whose markup moved', { timeout: 60_000 }, logged(async () => {
    const same = await sovereign(['replay', flowFile(), '--set', `password=${PASSWORD}`, '--set', 'full_name=Grace Hopper']);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /replayed 11 steps/);
    assert.equal(await orderShown(), 'ada@example.org / tea / Grace Hopper / Japan', 'the parameter set, the rest as recorded');

    const moved = await sovereign(['replay', flowFile(), `--set=password=${PASSWORD}`, '--origin', sites.moved.url('/')]);
    assert.equal(moved.code, 0, moved.stdout + moved.stderr);
    assert.equal((await callJson(mcp, 'get_url')).url.startsWith(sites.moved.url('/done.html')), true);
    assert.equal(await orderShown(), 'ada@example.org / tea / Ada Lovelace / Japan');

    const unset = await sovereign(['replay', flowFile()]);
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /--set password=\.\.\. \(a secret/);
    // The origins it opens are said before it runs.
    assert.match(same.stdout, new RegExp(`^this flow opens ${new URL(sites.same.url('/')).origin}\n`));
    assert.match(moved.stdout, new RegExp(`^this flow opens ${new URL(sites.moved.url('/')).origin}\n`));
  }));

  it('a shared flow file gets no agent powers: only what export writes is done, with its arguments checked', { timeout: 60_000 }, logged(async () => {
    const flow = JSON.parse(readFileSync(flowFile(), 'utf8'));
    const before = (await callJson(mcp, 'get_url')).url;
    const edited = path.join(dir, 'edited.flow.json');
    const routed = (await callJson(mcp, 'network_routes')).routes.length;
    for (const [step, why] of [
      [{ n: 90, tool: 'eval', args: { script: "document.title = 'flow ran a script'" } }, /a replay does only what export writes/],
      [{ n: 91, tool: 'network_route', args: { url: '**', body: 'owned' } }, /a replay does only what export writes/],
      [{ n: 92, tool: 'login', args: { method: 'local', nsec: TEST_NSEC } }, /a replay does only what export writes/],
      [{ n: 93, tool: 'open', args: { url: 'file:///etc/passwd' } }, /its url must be an http or https address/],
      [{ n: 94, tool: 'open', args: { url: sites.same.url('/shop.html'), context: 'default' } }, /no argument "context"/],
      [{ n: 95, tool: 'click', target: { role: 'button', name: 'Sign in' }, args: { modifiers: ['Control'] } }, /no other arguments/],
    ]) {
      // The bad step last: nothing before it runs either.
      writeFileSync(edited, JSON.stringify({ ...flow, steps: [...flow.steps, step] }));
      const out = await sovereign(['replay', edited, '--set', `password=${PASSWORD}`]);
      assert.equal(out.code, 2, `${step.tool}: ${out.stdout}${out.stderr}`);
      assert.match(out.stderr, new RegExp(`step ${flow.steps.length + 1} \\(${step.tool}\\) is not one \`sovereign record export\` writes`));
      assert.match(out.stderr, why);
      assert.equal(out.stdout, '', 'nothing ran');
    }
    assert.equal((await callJson(mcp, 'get_url')).url, before, 'the browser was not touched');
    assert.equal((await callJson(mcp, 'network_routes')).routes.length, routed);
  }));

  it('stops at the step whose button is missing, saying what it expected and found, with a screenshot', { timeout: 60_000 }, logged(async () => {
    const stopped = await sovereign(['replay', flowFile(), '--set', `password=${PASSWORD}`, '--origin', sites.missing.url('/')]);
    assert.equal(stopped.code, 1, stopped.stdout + stopped.stderr);
    assert.match(stopped.stdout, /^replay stopped at step 11 of 11 \(recorded call \d+\): click button "Place order"$/m);
    assert.match(stopped.stdout, /^  expected: an element: button "Place order"$/m);
    assert.match(stopped.stdout, /^  found: ELEMENT_NOT_FOUND: /m);
    const shot = stopped.stdout.match(/^  screenshot: (.+\.png)$/m)[1];
    assertPng(readFileSync(shot), 'the page where the replay stopped');
  }));

  it('its Playwright export runs green under @playwright/test in Debian\'s Chromium', { timeout: 120_000 }, logged(async () => {
    mkdirSync(path.join(dir, 'pw'));
    const spec = path.join(dir, 'pw', 'shop.spec.ts');
    // The replays recorded sessions of their own since: name the agent's.
    const { session } = JSON.parse(readFileSync(flowFile(), 'utf8'));
    const out = await sovereign(['record', 'export', session, '--format', 'playwright', '--out', spec]);
    assert.equal(out.code, 0, out.stderr);
    const source = readFileSync(spec, 'utf8');
    assert.match(source, /page\.getByRole\("button", \{ name: "Place order", exact: true \}\)\.click\(\)/);
    assert.match(source, /getByTestId\("add-tea"\)/);
    writeFileSync(path.join(dir, 'pw', 'playwright.config.mjs'), `export default {
  testDir: '.',
  timeout: 30000,
  reporter: 'line',
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox'] } },
};
`);
    const result = await run(path.join(REPO_ROOT, 'node_modules', '.bin', 'playwright'), ['test', '--config', 'playwright.config.mjs'], {
      cwd: path.join(dir, 'pw'),
      // The spec is outside the repository: it finds @playwright/test through NODE_PATH.
      env: { BASE_URL: sites.same.url('/').replace(/\/$/, ''), FLOW_PASSWORD: PASSWORD, NODE_PATH: path.join(REPO_ROOT, 'node_modules'), CI: '1' },
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /1 passed/);
  }));

  it('a fill from the person\'s vault is exported by the entry\'s name and replayed from the vault, never holding the value', { timeout: 60_000 }, logged(async () => {
    const panel = await connectPanel(browser);
    try {
      await agentCall(panel, 'vault_create', { password: 'the person\'s vault password' });
      await agentCall(panel, 'vault_put', { name: 'shop', origins: [sites.same.url('/')], password: PASSWORD });
      const agent = await connectMcp(browser, { name: 'vault-shopping-agent' });
      try {
        await callJson(agent, 'open', { url: sites.same.url('/signin.html') });
        await callJson(agent, 'fill', { selector: '#email', value: 'grace@example.org' });
        await callJson(agent, 'fill', { selector: '#password', secret: 'shop', field: 'password' });
        await callJson(agent, 'click', { selector: 'button' });
        await callJson(agent, 'wait_for_url', { url_pattern: '**/shop.html' });
      } finally {
        await agent.close().catch(() => {});
      }
      const file = path.join(dir, 'vault.flow.json');
      const exported = await waitFor(async () => {
        const out = await sovereign(['record', 'export', 'last', '--out', file]);
        return out.code === 0 && readFileSync(file, 'utf8').includes('vault-shopping-agent') && readFileSync(file, 'utf8').includes('wait_for_url') && out;
      }, 'the vault flow on disk');
      assert.ok(exported);
      const flow = JSON.parse(readFileSync(file, 'utf8'));
      const filled = flow.steps.find((s) => s.target?.name === 'Password');
      assert.deepEqual(filled.from_vault, { secret: 'shop', field: 'password' });
      assert.equal(filled.value, undefined, 'no value and no parameter for it');
      // Replayed with no --set: the browser fills it from the vault again, and the site takes it.
      await callJson(mcp, 'open', { url: 'about:blank' });
      const replayed = await sovereign(['replay', file]);
      assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
      assert.ok((await callJson(mcp, 'get_url')).url.startsWith(sites.same.url('/shop.html')), 'signed in by the replay');
      // Locked, the replay stops at that step, saying why.
      await agentCall(panel, 'vault_lock');
      const locked = await sovereign(['replay', file]);
      assert.equal(locked.code, 1, locked.stdout + locked.stderr);
      assert.match(locked.stdout, /SECRET_REFUSED: locked: /);
      // Its Playwright form takes the value from the environment, named after the entry.
      const spec = path.join(dir, 'vault.spec.ts');
      const out = await sovereign(['record', 'export', flow.session, '--format', 'playwright', '--out', spec]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(readFileSync(spec, 'utf8'), /\.fill\(process\.env\.FLOW_VAULT_SHOP_PASSWORD \?\? ''\)/);
    } finally {
      await panel.close();
    }
  }));

  it('no secret typed appears in the recordings, the flow or the test', () => {
    const files = [...filesUnder(path.join(profile, 'recordings')), ...filesUnder(dir).filter((f) => !f.file.startsWith(profile))];
    for (const { file, text } of files) {
      assert.ok(!text.includes(PASSWORD), `${file} holds the password`);
    }
  });
});
