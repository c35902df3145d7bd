// The usual start of a browsing test file: fixture pages, the browser, an
// MCP client, and a logged-in identity; stop() ends them all.
import { before, beforeEach, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBrowser, withBrowserLog } from './browser.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp } from './mcp.mjs';
import { agentCall, connectPanel } from './agent.mjs';

export async function startLoggedIn(opts = {}) {
  const fixtures = await startFixtureServer();
  let browser;
  let mcp;
  try {
    browser = await startBrowser(opts);
    mcp = await connectMcp(browser);
    await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
  } catch (error) {
    // Nothing left running to keep the test file's process alive.
    await mcp?.close().catch(() => {});
    await browser?.stop().catch(() => {});
    await fixtures.close();
    throw error;
  }
  return {
    fixtures,
    browser,
    mcp,
    async stop() {
      await mcp.close().catch(() => {});
      await browser.stop();
      await fixtures.close();
    },
  };
}

/**
 * The person says yes, in their panel, to agents' routes in their own
 * window (the default context): files that route it need it.
 */
export async function allowRoutesInPersonsWindow(browser) {
  const panel = await connectPanel(browser);
  try {
    await agentCall(panel, 'network_routes_allow', { allowed: true });
  } finally {
    await panel.close();
  }
}

/**
 * For a describe block: starts a logged-in session before its tests and stops
 * it after. Gives the MCP client, the fixtures, `call` (a tool's JSON result)
 * and `logged` (a test body that prints the browser's log when it fails).
 */
export function loggedInSuite(opts = {}) {
  let session;
  before(async () => { session = await startLoggedIn(opts); }, { timeout: 90_000 });
  after(async () => { await session?.stop(); });
  return {
    get session() { return session; },
    get mcp() { return session.mcp; },
    get fixtures() { return session.fixtures; },
    call: (tool, args = {}) => callJson(session.mcp, tool, args),
    logged: (fn) => withBrowserLog(() => session.browser, fn),
  };
}

/**
 * loggedInSuite with a files folder of its own (`dir`, removed after), and
 * `page` (a fixture path) opened before each test.
 */
export function filesSuite(page, opts = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sovereign-files-'));
  const suite = loggedInSuite({ ...opts, args: ['--files-dir', dir, ...(opts.args ?? [])] });
  beforeEach(async () => { await suite.call('open', { url: suite.fixtures.url(page) }); });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return Object.assign(suite, { dir });
}
