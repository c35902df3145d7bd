// The usual start of a browsing test file: fixture pages, the browser, an
// MCP client, and a logged-in identity; stop() ends them all.
import { startBrowser } from './browser.mjs';
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
