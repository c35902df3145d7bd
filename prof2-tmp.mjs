import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { startLoggedIn } from './tests/support/session.mjs';
import { callJson } from './tests/support/mcp.mjs';
const dir = 'assets/agent';
const lib = readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => readFileSync(`${dir}/${f}`, 'utf8')).join('\n')
  .replaceAll("'__sovereignAgent'", "'__probeAgent'").replace("typeof globalThis.__sovereignAgent === 'object' && globalThis.__sovereignAgent !== null", 'false');
const srv = http.createServer((q, r) => { try { r.end(readFileSync('../shared/bench-pages' + q.url.split('?')[0])); } catch { r.statusCode = 404; r.end(); } });
await new Promise((d) => srv.listen(0, '127.0.0.1', d));
const s = await startLoggedIn();
await callJson(s.mcp, 'open', { url: `http://127.0.0.1:${srv.address().port}/large.html` });
await callJson(s.mcp, 'eval', { script: lib + '; 1' });
const r = await callJson(s.mcp, 'eval', { script: `(() => { const r = JSON.parse(__probeAgent.call('snapshot', {interactive: false, max_chars: 4000000})); const v = r.value; return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, JSON.stringify(x).length])); })()` });
console.log(r.value);
await s.stop(); srv.close();
