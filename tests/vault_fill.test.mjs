// Filling from the person's vault, through the real browser: an agent signs
// in to a site with a user name, a password and a one-time code it never
// sees; the site gets the right ones (the code checked here with an
// independent TOTP implementation); no value reaches any tool's answer, the
// snapshot, the network log or the browser's log; the filled fields and the
// page's scripts stay closed to agents. Each rule refuses with its word:
// another origin, a frame of another origin, a tab an agent's script
// touched, a locked vault.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startBrowser, withBrowserLog } from './support/browser.mjs';
import { agentCall, connectPanel } from './support/agent.mjs';
import { TEST_NSEC, callError, callJson, callText, connectMcp } from './support/mcp.mjs';

const USER = 'ada-at-the-site';
const PASSWORD = 'analytical-engine-1843';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
// Another entry's user name, as long as USER: a picture of either filled field is the same.
const TWIN_USER = 'bob-on-the-webx';
const VALUES = [USER, PASSWORD, TOTP_SECRET, TWIN_USER];

/** RFC 6238 with SHA-1, six digits, 30 s: written here apart from the browser's. */
function totp(base32, unix) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of base32) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unix / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** The site: a sign-in form that checks what it is sent; a page framing another origin. */
function startSite() {
  const logins = [];
  const server = http.createServer((req, res) => {
    const page = (body) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body>${body}</body></html>`);
    };
    if (req.method === 'POST' && req.url === '/login') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const now = Date.now() / 1000;
        const codeOk = [now, now - 30].some((t) => totp(TOTP_SECRET, t) === form.get('code'));
        const ok = form.get('user') === USER && form.get('password') === PASSWORD && codeOk;
        logins.push({ ok, user: form.get('user') === USER, password: form.get('password') === PASSWORD, code: codeOk });
        page(ok ? '<h1>Welcome back</h1>' : '<h1>Denied</h1>');
      });
      return;
    }
    if (req.url.startsWith('/framed')) {
      const other = new URL(req.url, 'http://x').searchParams.get('other');
      page(`<h1>Framed</h1><iframe title="sign in" src="http://127.0.0.1:${other}/login" width="400" height="300"></iframe>`);
      return;
    }
    page(`<h1>Sign in</h1><form method="post" action="/login">
      <label>User <input id="user" name="user" autocomplete="username"></label>
      <label>Password <input id="password" name="password" type="password"></label>
      <label>Code <input id="code" name="code" inputmode="numeric"></label>
      <button id="go" type="submit">Sign in</button></form>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const port = server.address().port;
    resolve({ port, url: (p) => `http://127.0.0.1:${port}${p}`, logins, close: () => server.close() });
  }));
}

describe('filling from the vault', { timeout: 300_000 }, () => {
  let browser;
  let site;
  let other;
  let mcp;
  let panel;
  const answers = [];
  const test = (name, fn) => it(name, { timeout: 90_000 }, withBrowserLog(() => browser, fn));
  const call = async (tool, args = {}) => {
    const result = await callJson(mcp, tool, args);
    answers.push(JSON.stringify(result));
    return result;
  };
  const refused = async (tool, args, code) => {
    const message = await callError(mcp, tool, args, code);
    answers.push(message);
    return message;
  };
  const fillSecret = (selector, field, extra = {}) => call('fill', { selector, secret: 'site', field, ...extra });

  before(async () => {
    site = await startSite();
    other = await startSite();
    browser = await startBrowser();
    mcp = await connectMcp(browser, { name: 'vault-fill-agent' });
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    panel = await connectPanel(browser);
    await agentCall(panel, 'vault_create', { password: 'a vault password' });
    await agentCall(panel, 'vault_put', {
      name: 'site', origins: [site.url('/')], user: USER, password: PASSWORD, totp: TOTP_SECRET,
    });
    await agentCall(panel, 'vault_put', { name: 'twin', origins: [site.url('/')], user: TWIN_USER });
  }, { timeout: 90_000 });

  after(async () => {
    await mcp?.close().catch(() => {});
    await panel?.close();
    await browser?.stop();
    site?.close();
    other?.close();
  });

  test('the agent signs in with values it never sees, and the site gets the right ones', async () => {
    await call('open', { url: site.url('/login') });
    assert.deepEqual(await fillSecret('#user', 'user'), { filled: true, secret: 'site', field: 'user' });
    await fillSecret('#password', 'password');
    await fillSecret('#code', 'totp');
    // The filled fields are the person's: no read shows them, no script of an agent runs there.
    const snapshot = await callText(mcp, 'snapshot', {});
    answers.push(snapshot);
    assert.match(snapshot, /filled from the person's vault; hidden from agents/);
    assert.match(await refused('get_value', { selector: '#user' }, 'NOT_ALLOWED'), /secret the browser filled from the person's vault/);
    assert.match(await refused('eval', { script: "document.querySelector('#password').value" }, 'NOT_ALLOWED'), /vault/);
    await refused('fill', { selector: '#user', value: 'mine' }, 'NOT_ALLOWED');
    const done = await call('click', { selector: '#go' });
    assert.equal(done.navigated, true);
    assert.deepEqual(site.logins.at(-1), { ok: true, user: true, password: true, code: true });
    assert.equal(await callText(mcp, 'get_text', { selector: 'h1' }), 'Welcome back');
    // Each use is in the identity audit: which entry and field, where, by which agent.
    const { uses } = await agentCall(panel, 'audit_log', {});
    answers.push(JSON.stringify(uses));
    const filled = uses.filter((u) => u.action === 'vault_fill');
    assert.deepEqual(filled.map((u) => u.detail.field).sort(), ['password', 'totp', 'user']);
    for (const use of filled) {
      assert.deepEqual([use.allowed, use.origin, use.detail.entry, use.agent.client],
        [true, `http://127.0.0.1:${site.port}`, 'site', 'vault-fill-agent']);
    }
  });

  test('what the page sent is withheld, and no value is in any answer or the browser\'s log', async () => {
    const { requests } = await call('network_requests', {});
    const post = requests.find((r) => r.method === 'POST' && r.url.endsWith('/login'));
    assert.ok(post, 'the sign-in post is in the log');
    const detail = await call('network_request', { id: post.id });
    assert.match(JSON.stringify(detail), /withheld/);
    // The person's own HAR export names the form's entries, never their values.
    const tab = (await call('tab_list')).tabs.find((t) => t.current).id;
    const har = readFileSync((await agentCall(panel, 'network_har', { tab, all: true })).path, 'utf8');
    for (const value of [USER, PASSWORD]) assert.ok(!har.includes(value), `the HAR export holds ${value}`);
    const exported = JSON.parse(har).log.entries.find((e) => e.request.method === 'POST' && e.request.url.endsWith('/login'));
    assert.deepEqual(exported.request.postData.params.map((p) => p.name), ['user', 'password', 'code']);
    for (const value of VALUES) {
      for (const answer of answers) assert.ok(!answer.includes(value), `an answer holds ${value}: ${answer.slice(0, 200)}`);
      assert.ok(!(browser.stderr() + browser.stdout()).includes(value), `the browser's log holds ${value}`);
    }
  });

  test('fill_form takes secrets by name too, beside the agent\'s own values, and submits', async () => {
    await call('open', { url: site.url('/login') });
    const result = await call('fill_form', {
      fields: [
        { selector: '#user', secret: 'site', field: 'user' },
        { selector: '#password', secret: 'site', field: 'password' },
        { selector: '#code', secret: 'site', field: 'totp' },
      ],
      submit: true,
    });
    assert.deepEqual(result.fields.map((f) => [f.secret, f.field]), [['site', 'user'], ['site', 'password'], ['site', 'totp']]);
    assert.equal(result.navigated, true);
    assert.deepEqual(site.logins.at(-1), { ok: true, user: true, password: true, code: true });
    // A field naming both, or a secret without its field, is refused naming the field.
    await call('open', { url: site.url('/login') });
    const both = await refused('fill_form', { fields: [{ selector: '#user', value: 'x', secret: 'site', field: 'user' }] }, 'INVALID_PARAMS');
    assert.match(both, /^field 0 \(#user\): give value or secret, not both/);
    const refusedHere = await refused('fill_form', { fields: [{ selector: '#user', value: 'mine' }, { selector: '#password', secret: 'site' }] }, 'INVALID_PARAMS');
    assert.match(refusedHere, /field 1 \(#password\).*say which field/);
    const { uses } = await agentCall(panel, 'audit_log', {});
    assert.ok(uses.filter((u) => u.action === 'vault_fill' && u.allowed).length >= 6, 'each of fill_form\'s uses is in the audit');
  });

  test('pictures of a filled field show dots whatever the secret, in a screenshot and a PDF', async () => {
    /** The user field's picture, and the PDF's text, with the field filled by `fill`'s arguments. */
    const pictured = async (args) => {
      await call('tab_new', { url: site.url('/login') });
      // Not kept among the answers checked for values: the agent's own text is in its answer.
      await callJson(mcp, 'fill', { selector: '#user', ...args });
      await call('focus', { selector: '#go' }); // no caret in the picture
      const shot = await mcp.callTool('screenshot', { selector: '#user' });
      assert.ok(!shot.isError, JSON.stringify(shot.content));
      const { path } = await call('pdf', {});
      const text = execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' });
      await call('tab_close', {});
      return { image: shot.content.find((c) => c.type === 'image').data, text };
    };
    const site1 = await pictured({ secret: 'site', field: 'user' });
    const twin = await pictured({ secret: 'twin', field: 'user' });
    const typed = await pictured({ value: USER });
    // The agent's own text shows, so the pictures can show a field's text at all.
    assert.ok(typed.text.includes(USER), `the PDF shows an agent's own text: ${typed.text}`);
    assert.notEqual(site1.image, typed.image, 'the filled field is not drawn as its text');
    // Two secrets of one length are the same picture: no character of either shows.
    assert.equal(site1.image, twin.image, 'the pictures of two different secrets differ');
    for (const text of [site1.text, twin.text]) {
      assert.ok(!text.includes(USER) && !text.includes(TWIN_USER), `the PDF holds the secret: ${text}`);
      assert.match(text, /Sign in/);
    }
  });

  // Regression: a route added after the fill could answer a script the
  // filled page loads later, and that script would read the field.
  test('no new route in a context while its page holds a secret from the vault', async () => {
    const agent = await connectMcp(browser, { name: 'route-after-fill-agent' });
    try {
      await callJson(agent, 'context_new', { name: 'filled-then-routed' });
      await callJson(agent, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(agent, 'open', { url: site.url('/login') });
      await callJson(agent, 'fill', { selector: '#password', secret: 'site', field: 'password' });
      for (const [tool, args] of [
        ['network_route', { url: '**/later.js', action: 'fulfill', body: 'document.title = "read"' }],
        ['network_route', { url: '**', action: 'abort' }],
      ]) {
        const why = await callError(agent, tool, args, 'NOT_ALLOWED');
        assert.match(why, /holds a secret filled from the person's vault: until that page is left, no new route is added in its context/);
      }
      assert.deepEqual((await callJson(agent, 'network_routes', {})).routes, [], 'nothing was added');
      // The page left, routes are the agent's again.
      await callJson(agent, 'open', { url: site.url('/elsewhere') });
      const { route } = await callJson(agent, 'network_route', { url: '**/later.js', action: 'abort' });
      assert.ok(route, 'the route is added once the page is left');
    } finally {
      await agent.close().catch(() => {});
    }
  });

  test('each rule refuses with its word', async () => {
    // Another origin (another port is another site).
    await call('open', { url: `http://127.0.0.1:${other.port}/login` });
    assert.match(await refused('fill', { selector: '#password', secret: 'site', field: 'password' }, 'SECRET_REFUSED'), /^origin: site may be used on http:\/\/127\.0\.0\.1:\d+ only/);
    const { uses } = await agentCall(panel, 'audit_log', {});
    const refusal = uses.findLast((u) => u.action === 'vault_fill' && !u.allowed);
    assert.equal(refusal.origin, `http://127.0.0.1:${other.port}`);
    assert.match(refusal.error, /^origin: /);
    // A frame of another origin inside the entry's own site.
    await call('open', { url: site.url(`/framed?other=${other.port}`) });
    const frame = await callText(mcp, 'snapshot', {});
    const frameRef = frame.match(/^\s*(e\d+) iframe/m)?.[1];
    const inner = frame.match(/^\s*(f\d+e\d+) textbox "Password"/m)?.[1];
    assert.ok(frameRef && inner, `the iframe and its field have refs: ${frame}`);
    // By the field's own ref, and from inside the frame.
    assert.match(await refused('fill', { ref: inner, secret: 'site', field: 'password' }, 'SECRET_REFUSED'), /^frame: /);
    await call('frame_switch', { ref: frameRef });
    assert.match(await refused('fill', { selector: '#password', secret: 'site', field: 'password' }, 'SECRET_REFUSED'), /^frame: /);
    await call('frame_main', {});
    // A tab an agent's script reached.
    await call('open', { url: site.url('/login') });
    await call('eval', { script: '1 + 1' });
    assert.match(await refused('fill', { selector: '#password', secret: 'site', field: 'password' }, 'SECRET_REFUSED'), /^touched: /);
    // A context whose requests an agent's route may answer.
    const routed = await connectMcp(browser, { name: 'routing-agent' });
    try {
      await callJson(routed, 'context_new', { name: 'routed' });
      await callJson(routed, 'login', { method: 'local', nsec: TEST_NSEC });
      await callJson(routed, 'network_route', { url: '**/nothing-here', action: 'abort' });
      await callJson(routed, 'open', { url: site.url('/login') });
      const message = await callError(routed, 'fill', { selector: '#password', secret: 'site', field: 'password' }, 'SECRET_REFUSED');
      assert.match(message, /^touched: /);
    } finally {
      await routed.close().catch(() => {});
    }
    // A new tab nothing of the agent's reached takes it.
    await call('tab_new', { url: site.url('/login') });
    await fillSecret('#password', 'password');
    // Locked.
    await agentCall(panel, 'vault_lock');
    assert.match(await refused('fill', { selector: '#user', secret: 'site', field: 'user' }, 'SECRET_REFUSED'), /^locked: /);
    // A field an entry does not hold, an entry that does not exist.
    await agentCall(panel, 'vault_unlock', { password: 'a vault password' });
    await refused('fill', { selector: '#user', secret: 'nope', field: 'user' }, 'INVALID_PARAMS');
    await refused('fill', { selector: '#user', secret: 'site' }, 'INVALID_PARAMS');
  });

  test('after all of it, no value is in any answer or the browser\'s log', async () => {
    for (const value of VALUES) {
      for (const answer of answers) assert.ok(!answer.includes(value), `an answer holds ${value}: ${answer.slice(0, 200)}`);
      assert.ok(!(browser.stderr() + browser.stdout()).includes(value), `the browser's log holds ${value}`);
    }
  });
});
