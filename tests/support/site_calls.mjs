// A web app's own window.nostr calls, as opposed to an agent's: the app
// (tests/fixtures/nostr-app.html) runs the script in its address (#run=) as
// its own code, and the result is read back with an agent-world tool
// (get_text). No script of the test runs in the page's world: an agent's
// eval there marks the tab, and its calls are asked about as the agent's.
import { callText, callJson } from './mcp.mjs';
import { waitFor } from './wait.mjs';

let runs = 0;

/**
 * For one MCP client: `start(expression, page)` opens the app (`page`, by
 * default `appUrl`) in the client's tab, running `expression` as the
 * site's script; `result()` waits for what it gave in that tab:
 * {ok, value, at} or {ok: false, error, at} (`at`: the page's Date.now()).
 * `call` does both.
 */
export function siteCalls(mcp, appUrl) {
  const start = async (expression, page = appUrl) => {
    runs += 1;
    const url = `${page}${page.includes('?') ? '&' : '?'}run=${runs}#run=${encodeURIComponent(expression)}`;
    await callJson(mcp, 'open', { url });
  };
  const result = (ms = 45_000) => waitFor(async () => {
    const text = (await callText(mcp, 'get_text', { selector: '#out' })).trim();
    return text ? JSON.parse(text) : null;
  }, 'the site\'s own call to settle', ms);
  return {
    start,
    result,
    call: async (expression, page) => {
      await start(expression, page);
      return result();
    },
  };
}
