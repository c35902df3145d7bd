// audit_accessibility: axe-core run in the agent's world finds what axe-core
// run by Playwright in Chromium finds on the same page (the rule ids), each
// violation with refs that act; a clean part has none; pages cannot see axe.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { REPO_ROOT } from './support/browser.mjs';
import { loggedInSuite } from './support/session.mjs';
import { callError } from './support/mcp.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const AXE = readFileSync(`${REPO_ROOT}/node_modules/axe-core/axe.min.js`, 'utf8');

describe('audit_accessibility', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;
  let chrome;
  before(async () => {
    chrome = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, { timeout: 60_000 });
  after(async () => { await chrome?.close(); });

  /** The rule ids axe-core finds in Chromium, run as Playwright's axe integration does. */
  async function chromiumRuleIds(url, selector) {
    const page = await chrome.newPage();
    try {
      await page.goto(url);
      await page.evaluate(AXE);
      return await page.evaluate(async (scope) => {
        const results = await window.axe.run(scope ? document.querySelector(scope) : document, { resultTypes: ['violations'], iframes: false });
        return results.violations.map((v) => v.id).sort();
      }, selector ?? null);
    } finally {
      await page.close();
    }
  }

  it('finds the rule violations axe-core finds in Chromium, with refs that act', logged(async () => {
    const url = suite.fixtures.url('/a11y-faults.html');
    await call('open', { url });
    const report = await call('audit_accessibility');
    const ids = report.violations.map((v) => v.id).sort();
    assert.deepEqual(ids, await chromiumRuleIds(url));
    for (const expected of ['image-alt', 'button-name', 'label', 'link-name', 'color-contrast']) {
      assert.ok(ids.includes(expected), `${expected} in ${ids}`);
    }
    assert.match(report.engine, /^axe-core 4\./);
    assert.equal(report.count, report.violations.length);
    const button = report.violations.find((v) => v.id === 'button-name');
    assert.equal(button.count, 1);
    assert.match(button.help_url, /^https:\/\/dequeuniversity\.com\//);
    const [node] = button.nodes;
    assert.equal(node.target, '#nameless');
    assert.match(node.ref, /^e\d+$/);
    // The ref is the button: an element tool takes it.
    assert.equal((await call('get_attr', { ref: node.ref, attr: 'id' })).value, 'nameless');
    // The page's own world has no axe.
    assert.equal((await call('eval', { script: 'typeof window.axe' })).value, 'undefined');
  }));

  it('selector scopes the audit; a clean part has no violation', logged(async () => {
    const url = suite.fixtures.url('/a11y-faults.html');
    await call('open', { url });
    const clean = await call('audit_accessibility', { selector: '#clean' });
    assert.deepEqual(clean.violations, await chromiumRuleIds(url, '#clean'));
    assert.equal(clean.count, 0);
    assert.ok(clean.passes > 0, 'rules ran and passed');
    await callError(suite.mcp, 'audit_accessibility', { selector: '#nothing' }, 'ELEMENT_NOT_FOUND');
  }));
});
