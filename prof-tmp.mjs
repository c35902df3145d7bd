import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startLoggedIn } from './tests/support/session.mjs';
import { callText, callJson } from './tests/support/mcp.mjs';
const dir = 'assets/agent';
const lib = readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => readFileSync(`${dir}/${f}`, 'utf8')).join('\n')
  .replaceAll("'__sovereignAgent'", "'__probeAgent'").replace("typeof globalThis.__sovereignAgent === 'object' && globalThis.__sovereignAgent !== null", 'false');
const srv = http.createServer((q, r) => { try { r.end(readFileSync('../shared/bench-pages' + q.url.split('?')[0])); } catch { r.statusCode = 404; r.end(); } });
await new Promise((d) => srv.listen(0, '127.0.0.1', d));
const base = `http://127.0.0.1:${srv.address().port}`;
const s = await startLoggedIn();
const p50 = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const page of ['large.html', 'form.html']) {
  await callJson(s.mcp, 'open', { url: `${base}/${page}` });
  await callJson(s.mcp, 'eval', { script: lib + '; 1' });
  for (const args of [{ interactive: true }, { interactive: false }]) {
    const inPage = await callJson(s.mcp, 'eval', { script: `(() => { const t = []; let n = 0; for (let i = 0; i < 21; i++) { const a = performance.now(); const r = __probeAgent.call('snapshot', ${JSON.stringify({ ...args, max_chars: 4000000 })}); t.push(performance.now() - a); n = r.length; } t.sort((x, y) => x - y); return { p50: t[10], min: t[0], n }; })()` });
    const tool = [];
    for (let i = 0; i < 21; i++) { const a = performance.now(); await callText(s.mcp, 'snapshot', args); tool.push(performance.now() - a); }
    const title = [];
    for (let i = 0; i < 21; i++) { const a = performance.now(); await callText(s.mcp, 'get_text', { selector: 'h1' }); title.push(performance.now() - a); }
    console.log(page, JSON.stringify(args), 'in page', inPage.value, 'tool p50', p50(tool).toFixed(1), 'get_text(h1) p50', p50(title).toFixed(1));
  }
}
await s.stop(); srv.close();
