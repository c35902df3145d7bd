// The frame of a test file over a real application: the application and a
// logged-in browser started before its tests and stopped after them, and
// the three things each test uses (its own `test`, a tool's JSON result,
// and an element picked by role and name, as a model picks it).
import { it, before, after } from 'node:test';
import { withBrowserLog } from './browser.mjs';
import { callJson } from './mcp.mjs';
import { pickRef } from './pick.mjs';
import { startLoggedIn } from './session.mjs';

/**
 * For a describe block: `startApp()` (an object with stop()) and a browser,
 * before its tests. `suite.app` and `suite.mcp` are set once they run.
 */
export function appSuite(startApp) {
  const suite = { app: null, session: null, mcp: null };
  suite.test = (name, fn) => it(name, { timeout: 60_000 }, withBrowserLog(() => suite.session.browser, fn));
  suite.call = (tool, args = {}) => callJson(suite.mcp, tool, args);
  suite.pick = (role, name) => pickRef(suite.mcp, role, name);
  before(async () => {
    suite.app = await startApp();
    suite.session = await startLoggedIn();
    suite.mcp = suite.session.mcp;
  }, { timeout: 180_000 });
  after(async () => {
    await suite.session?.stop();
    suite.app?.stop();
  });
  return suite;
}
