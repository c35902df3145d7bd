// The panel opens in a window of its own at start-up: its page connects
// back to the server (a second panel connection besides ours shows up).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startBrowser } from './support/browser.mjs';

describe('the panel window', { timeout: 120_000 }, () => {
  let browser;
  after(async () => { await browser?.stop(); });

  it('opens at start-up and connects, unless --no-panel', { timeout: 90_000 }, async () => {
    browser = await startBrowser({ baseArgs: ['--headless', '--ephemeral', '--port', '0', '--log-level', 'info'] });
    const origin = `http://127.0.0.1:${browser.port}`;
    const ws = new WebSocket(`ws://127.0.0.1:${browser.port}/api/panel`, {
      headers: { Origin: origin, Authorization: `Bearer ${browser.panelKey}` },
    });
    const panels = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the panel window never connected')), 30_000);
      ws.on('message', (raw) => {
        const msg = JSON.parse(raw);
        if (msg.event !== 'state') return;
        const others = msg.data.sessions.filter((s) => s.transport === 'panel' && s.id !== msg.data.you);
        if (others.length > 0) { clearTimeout(timer); resolve(others); }
      });
      ws.on('error', reject);
    });
    ws.close();
    assert.equal(panels.length, 1, 'exactly one panel window');
  });
});
