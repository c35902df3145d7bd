// What the name and role benchmarks share: a folder of pages served on
// 127.0.0.1, Sovereign Browser logged in over MCP, and Debian's Chromium
// (playwright-core) to compare with. close() ends them all, whatever started.
import { chromium } from 'playwright-core';
import { startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp } from '../tests/support/mcp.mjs';

export const CHROMIUM_BIN = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

/** Resolves { server, mcp, context (Chromium's), close() }. */
export async function startComparison(root) {
  const server = await startFixtureServer({ root });
  const started = { server };
  const close = async () => {
    await started.chrome?.close().catch(() => {});
    await started.mcp?.close().catch(() => {});
    await started.browser?.stop().catch(() => {});
    await server.close();
  };
  try {
    started.browser = await startBrowser();
    started.mcp = await connectMcp(started.browser);
    await callJson(started.mcp, 'login', { method: 'local', nsec: TEST_NSEC });
    started.chrome = await chromium.launch({
      executablePath: CHROMIUM_BIN,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const context = await started.chrome.newContext();
    return { server, mcp: started.mcp, context, close };
  } catch (err) {
    await close();
    throw err;
  }
}
