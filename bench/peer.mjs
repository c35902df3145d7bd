// The peer the benchmarks compare with: Playwright MCP (pinned), driving the
// system Chromium, started as its users start it (stdio, headless,
// isolated). Installed once into target/bench-peer (PEER_DIR).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT } from '../tests/support/browser.mjs';

export const PEER_VERSION = '0.0.83';
export const PEER_NAME = `Playwright MCP ${PEER_VERSION}`;
const PEER_DIR = path.resolve(REPO_ROOT, process.env.PEER_DIR || 'target/bench-peer');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/** Installs Playwright MCP where the benchmarks keep it, once; its cli.js. */
export function installPeer() {
  const cli = path.join(PEER_DIR, 'node_modules/@playwright/mcp/cli.js');
  if (existsSync(cli)) return cli;
  mkdirSync(PEER_DIR, { recursive: true });
  console.log(`installing @playwright/mcp@${PEER_VERSION} into ${path.relative(REPO_ROOT, PEER_DIR)}`);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', PEER_DIR, `@playwright/mcp@${PEER_VERSION}`],
    { stdio: 'inherit', env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' } });
  if (npm.status !== 0) throw new Error('npm install of @playwright/mcp failed');
  return cli;
}

/**
 * Starts the peer over stdio in a folder of its own (its workspace: files
 * it may upload live there). Resolves { client, pid, folder, close() }.
 */
export async function startPeer(clientName = 'bench') {
  const cli = installPeer();
  const folder = mkdtempSync(path.join(tmpdir(), 'bench-peer-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, '--headless', '--isolated', '--browser', 'chromium', '--executable-path', CHROMIUM, '--no-sandbox'],
    cwd: folder,
    stderr: 'ignore',
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    folder,
    async close() {
      await client.close().catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
