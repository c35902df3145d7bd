// The usual start of a browsing test file: fixture pages, the browser, an
// MCP client, and a logged-in identity; stop() ends them all.
import { before, after } from 'node:test';
import { startBrowser, withBrowserLog } from './browser.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp } from './mcp.mjs';

export async function startLoggedIn(opts = {}) {
  const fixtures = await startFixtureServer();
  const browser = await startBrowser(opts);
  const mcp = await connectMcp(browser);
  await callJson(mcp, 'login', { method: 'local', nsec: TEST_NSEC });
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
