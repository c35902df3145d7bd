// The official MCP conformance suite against the browser, at both wires:
// each scenario a server without the suite's own reference tools can be
// measured by, at 2025-11-25 (sessions) and at 2026-07-28 (stateless).
// Every check must succeed but those listed below, which need one of the
// suite's test tools (a browser has none of them) to be exercised.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, startBrowser, withBrowserLog } from './support/browser.mjs';
import { LATEST_PROTOCOL, MODERN_PROTOCOL } from './support/mcp.mjs';

const CLI = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const PRELOAD = path.join(REPO_ROOT, 'tests/support/conformance/preload.mjs');
const OUT = path.join(REPO_ROOT, 'test-artifacts/conformance');

const SCENARIOS = {
  [LATEST_PROTOCOL]: [
    'server-initialize', 'server-session-lifecycle', 'ping', 'logging-set-level', 'tools-list',
    'resources-list', 'prompts-list', 'dns-rebinding-protection', 'server-sse-multiple-streams',
  ],
  [MODERN_PROTOCOL]: [
    'server-stateless', 'tools-list', 'caching', 'http-header-validation', 'resources-list',
    'prompts-list', 'sep-2164-resource-not-found', 'dns-rebinding-protection',
    'server-sse-multiple-streams',
  ],
};

/** Checks that cannot succeed here, and why. */
const NEEDS_THE_SUITES_TOOLS = {
  'sep-2575-server-rejects-undeclared-capability':
    'calls test_missing_capability; no tool of the browser needs a capability of the client',
  'sep-2575-missing-capability-http-400': 'the same probe as the previous check',
  'sep-2575-http-server-no-independent-requests-on-stream':
    'calls test_streaming_elicitation; no tool of the browser asks the client for input',
  'sep-2575-server-no-log-without-loglevel':
    'calls test_logging_tool; tests/mcp_modern.test.mjs checks the rule on real tools',
  'sep-2575-server-sends-tools-list-changed-on-subscription':
    'changes the tools with test_trigger_tool_change; here only the person can (tests/mcp_modern.test.mjs)',
};

function runScenario(url, scenario, version) {
  const out = path.join(OUT, `${version}-${scenario}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', PRELOAD, CLI, 'server', '--url', url,
      '--scenario', scenario, '--spec-version', version, '-o', out], { timeout: 120_000 }, (error, stdout, stderr) => {
      const runs = readdirSync(out);
      if (runs.length !== 1) {
        reject(new Error(`${scenario} at ${version} wrote no results: ${error?.message ?? ''}\n${stdout}\n${stderr}`));
        return;
      }
      resolve(JSON.parse(readFileSync(path.join(out, runs[0], 'checks.json'), 'utf8')));
    });
  });
}

describe('the MCP conformance suite, at 2025-11-25 and 2026-07-28', { timeout: 600_000 }, () => {
  let browser;
  // The suite's client sends no credentials.
  before(async () => { browser = await startBrowser({ args: ['--no-token'] }); }, { timeout: 90_000 });
  after(async () => { await browser?.stop(); });

  for (const [version, scenarios] of Object.entries(SCENARIOS)) {
    for (const scenario of scenarios) {
      it(`${scenario} at ${version}`, { timeout: 150_000 }, withBrowserLog(() => browser, async () => {
        const checks = await runScenario(browser.mcpUrl, scenario, version);
        assert.ok(checks.length > 0, 'the scenario ran checks');
        assert.ok(checks.some((c) => c.status === 'SUCCESS'), 'at least one check succeeded');
        const failed = checks
          .filter((c) => !['SUCCESS', 'INFO', 'SKIPPED'].includes(c.status))
          .filter((c) => !(c.id in NEEDS_THE_SUITES_TOOLS))
          .map((c) => `${c.id} ${c.status}: ${c.errorMessage ?? c.description}`);
        assert.deepEqual(failed, [], `checks that failed:\n${failed.join('\n')}`);
      }));
    }
  }
});
