// What bench/actionability.mjs does on each page that fights automation, and how it
// reads the outcome. Each run starts right after the page's load, without waiting.
import { callJson, callText } from '../../tests/support/mcp.mjs';

async function call(mcp, tool, args) {
  const result = await mcp.callTool(tool, args);
  const text = result.content?.[0]?.text ?? '';
  if (result.isError) return { error: result.structuredContent?.error ?? { code: '?', message: text } };
  return { value: result.structuredContent ?? text };
}

async function hits(mcp) {
  return (await callJson(mcp, 'eval', { script: 'window.hits' })).value ?? [];
}

async function clickOutcome(mcp, args) {
  const done = await call(mcp, 'click', args);
  const saw = (await hits(mcp)).join(', ') || 'no click';
  const did = done.error ? `${done.error.code}: ${done.error.message}` : 'clicked';
  return { did, saw, code: done.error?.code ?? 'OK', hits: await hits(mcp) };
}

function refOf(snapshot, role, name) {
  const line = snapshot.split('\n').find((l) => l.includes(`${role} "${name}"`));
  return /^\s*(\w+) /.exec(line ?? '')?.[1];
}

export const FIGHT_SCENARIOS = [
  { page: 'slide-in.html', action: 'click #go', run: (mcp) => clickOutcome(mcp, { selector: '#go' }) },
  { page: 'overlay-leaves.html', action: 'click #go', run: (mcp) => clickOutcome(mcp, { selector: '#go' }) },
  { page: 'overlay-stays.html', action: 'click #go (timeout 1000)', run: (mcp) => clickOutcome(mcp, { selector: '#go', timeout: 1000 }) },
  { page: 'moves-on-hover.html', action: 'click #go', run: (mcp) => clickOutcome(mcp, { selector: '#go' }) },
  { page: 'enabled-later.html', action: 'click #go', run: (mcp) => clickOutcome(mcp, { selector: '#go' }) },
  {
    page: 'enabled-later.html',
    action: 'fill #name (read-only 300 ms)',
    async run(mcp) {
      await callJson(mcp, 'reload');
      const done = await call(mcp, 'fill', { selector: '#name', value: 'Ada' });
      const value = (await callJson(mcp, 'eval', { script: "document.getElementById('name').value" })).value;
      return { did: done.error ? `${done.error.code}: ${done.error.message}` : 'filled', saw: `value ${JSON.stringify(value)}`, code: done.error?.code ?? 'OK', value };
    },
  },
  { page: 'scrolled.html', action: 'click #in-box (scrolled box)', run: (mcp) => clickOutcome(mcp, { selector: '#in-box' }) },
  {
    page: 'scrolled.html',
    action: 'click the frame\'s button by ref',
    async run(mcp) {
      const ref = refOf(await callText(mcp, 'snapshot'), 'button', 'In the frame');
      return clickOutcome(mcp, { ref });
    },
  },
  {
    page: 'rerender.html',
    action: 'snapshot, then click Beta by ref',
    async run(mcp) {
      const ref = refOf(await callText(mcp, 'snapshot'), 'button', 'Beta');
      // The list renders anew every 150 ms: let it, as an agent's thinking would.
      await new Promise((r) => setTimeout(r, 400));
      return clickOutcome(mcp, { ref });
    },
  },
];
