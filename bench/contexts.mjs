#!/usr/bin/env node
// Contexts side by side: one agent's flow alone, then four agents each in a
// context of its own running the same flow at once (aggregate flows per
// second, and the ratio to one alone), and the memory each extra context
// adds with one tab open. The flow's submit waits for the page's field
// timers (150 ms after the last typed value), which other agents' calls
// fill; so the calls that wait for nothing but the browser (a snapshot, a
// fill, a box checked) are measured the same way, alone and four at once:
// what the browser serialises shows there. A measurement, not a test.
//
// Usage: npm run bench:contexts
//   SOVEREIGN_BIN     the binary (default: target/release/sovereign-browser)
//   CONTEXT_FLOWS     flows each agent runs (default 10)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startBrowser } from '../tests/support/browser.mjs';
import { startFixtureServer } from '../tests/support/fixture-server.mjs';
import { TEST_NSEC, callJson, connectMcp } from '../tests/support/mcp.mjs';
import { treePss } from './pss.mjs';

const BIN = process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, 'target/release/sovereign-browser');
const FLOWS = Math.min(100, Math.max(1, Number(process.env.CONTEXT_FLOWS) || 10));
const BUSY_ROUNDS = 30;
const AGENTS = 4;
const RESULTS = fileURLToPath(new URL('./contexts-results.json', import.meta.url));
const log = (msg) => process.stderr.write(`contexts: ${msg}\n`);
const round = (x, digits = 2) => Number(x.toFixed(digits));

// One sign-up as an agent does it: the form, its fields, the submit, the
// answer read back. Fails loudly if the answer is not the agent's own.
async function flow(client, url, who, n) {
  await callJson(client, 'open', { url });
  const name = `${who}-${n}`;
  await callJson(client, 'fill', { selector: '#name', value: name });
  await callJson(client, 'fill', { selector: '#email', value: `${name}@example.org` });
  await callJson(client, 'select', { selector: '#country', value: 'Japan' });
  await callJson(client, 'check', { selector: '#agree' });
  await callJson(client, 'click', { selector: '#create' });
  const got = (await callJson(client, 'eval', { script: "document.querySelector('#got-name')?.textContent" })).value;
  if (got !== name) throw new Error(`${who}: the submitted page shows ${got}, not ${name}`);
}

// Calls that wait for nothing but the browser, as fast as an agent sends them.
async function busyRounds(client, who) {
  for (let i = 0; i < BUSY_ROUNDS; i++) {
    const snapshot = await client.callTool('snapshot', {});
    if (snapshot.isError) throw new Error(`${who}: snapshot failed: ${JSON.stringify(snapshot)}`);
    await callJson(client, 'fill', { selector: '#name', value: `${who}-${i}` });
    await callJson(client, i % 2 ? 'uncheck' : 'check', { selector: '#agree' });
  }
}

/** Calls a second of `agents` running busyRounds at once, each on the form at `url`. */
async function busyCallsPerSecond(agents, url) {
  await Promise.all(agents.map((client) => callJson(client, 'open', { url })));
  const started = performance.now();
  await Promise.all(agents.map((client, i) => busyRounds(client, `busy-${i}`)));
  return (agents.length * BUSY_ROUNDS * 3) / ((performance.now() - started) / 1000);
}

async function runFlows(client, url, who) {
  for (let n = 0; n < FLOWS; n++) await flow(client, url, who, n);
}

async function main() {
  const fixtures = await startFixtureServer();
  const browser = await startBrowser({ bin: BIN, args: ['--contexts-max', String(AGENTS)] });
  const clients = [];
  try {
    const url = fixtures.url('/form.html');
    for (let i = 0; i < AGENTS; i++) clients.push(await connectMcp(browser, { name: `agent-${i}` }));
    await callJson(clients[0], 'login', { method: 'local', nsec: TEST_NSEC });

    // Warm-up, then one agent alone in the person's context.
    await flow(clients[0], url, 'warm', 0);
    let started = performance.now();
    await runFlows(clients[0], url, 'alone');
    const aloneSeconds = (performance.now() - started) / 1000;

    // Memory with the person's context only, then with each extra context
    // and its one tab (on the same page).
    const memory = [treePss(browser.pid).totalMiB];
    for (let i = 0; i < AGENTS; i++) {
      await callJson(clients[i], 'context_new', { name: `agent-${i}` });
      // Each context its own identity: private key i + 1.
      const key = (i + 1).toString(16).padStart(64, '0');
      await callJson(clients[i], 'login', { method: 'local', privkey_hex: key });
      await callJson(clients[i], 'open', { url });
      await new Promise((r) => setTimeout(r, 500));
      memory.push(treePss(browser.pid).totalMiB);
    }

    // Four agents, four contexts, the same flow at once.
    started = performance.now();
    await Promise.all(clients.map((client, i) => runFlows(client, url, `agent-${i}`)));
    const togetherSeconds = (performance.now() - started) / 1000;

    // The calls that wait for nothing: one agent alone in its context, then four.
    const busyAlone = await busyCallsPerSecond(clients.slice(0, 1), url);
    const busyTogether = await busyCallsPerSecond(clients, url);
    const alone = FLOWS / aloneSeconds;
    const together = (FLOWS * AGENTS) / togetherSeconds;
    const added = memory.slice(1).map((m, i) => round(m - memory[i], 1));
    const results = {
      date: new Date().toISOString(),
      flows: FLOWS,
      agents: AGENTS,
      alone: { flowsPerSecond: round(alone), msPerFlow: round((aloneSeconds * 1000) / FLOWS, 1) },
      together: { flowsPerSecond: round(together), ratio: round(together / alone) },
      busyCalls: { alone: round(busyAlone, 1), together: round(busyTogether, 1), ratio: round(busyTogether / busyAlone) },
      memoryMiB: { personOnly: memory[0], withContexts: memory.slice(1), addedPerContext: added,
        meanAddedPerContext: round(added.reduce((a, b) => a + b, 0) / added.length, 1) },
    };
    writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
    console.log(`one agent alone: ${results.alone.flowsPerSecond} flows/s (${results.alone.msPerFlow} ms a flow)`);
    console.log(`${AGENTS} agents in ${AGENTS} contexts: ${results.together.flowsPerSecond} flows/s together (x${results.together.ratio})`);
    console.log(`calls that wait for nothing (snapshot, fill, check): one agent ${results.busyCalls.alone} calls/s, ${AGENTS} together ${results.busyCalls.together} calls/s (x${results.busyCalls.ratio})`);
    console.log(`memory (PSS of the process tree): ${memory[0]} MiB, then ${memory.slice(1).join(', ')} MiB; ${results.memoryMiB.meanAddedPerContext} MiB a context`);
    console.log('Written to bench/contexts-results.json.');
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await browser.stop();
    await fixtures.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
