import { readFileSync } from 'node:fs';
import http from 'node:http';
import { startLoggedIn } from './tests/support/session.mjs';
import { callJson, callText } from './tests/support/mcp.mjs';
import { treePss } from './bench/pss.mjs';
const srv = http.createServer((q, r) => { try { r.end(readFileSync('../shared/bench-pages' + q.url.split('?')[0])); } catch { r.statusCode = 404; r.end(); } });
await new Promise((d) => srv.listen(0, '127.0.0.1', d));
const base = `http://127.0.0.1:${srv.address().port}`;
const s = await startLoggedIn({ args: (process.env.EXTRA || '').split(' ').filter(Boolean) });
const pid = s.browser.pid ?? s.browser.child?.pid;
function breakdown(p) {
  const smaps = readFileSync(`/proc/${p}/smaps`, 'utf8');
  const by = new Map();
  let cur = '';
  for (const line of smaps.split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { cur = m[1] || '[anon]'; if (cur.includes('.so')) cur = 'libs'; else if (cur.startsWith('/memfd') || cur.startsWith('/dev/shm')) cur = 'shm'; continue; }
    const pss = /^Pss:\s+(\d+)/.exec(line);
    if (pss) by.set(cur, (by.get(cur) ?? 0) + Number(pss[1]));
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, v]) => `${k}=${(v / 1024).toFixed(1)}`).join(' ');
}
const show = (label) => { const t = treePss(pid); console.log(label, t.totalMiB, t.processes.map((p) => `${p.comm}:${p.pssMiB} [${breakdown(p.pid)}]`).join('\n   ')); };
show('start');
await callJson(s.mcp, 'open', { url: `${base}/large.html` });
for (let i = 0; i < 5; i++) await callText(s.mcp, 'snapshot', {});
show('1 tab large');
for (let i = 0; i < 9; i++) await callJson(s.mcp, 'tab_new', { url: `${base}/${i % 2 ? 'form.html' : 'large.html'}` });
await callText(s.mcp, 'snapshot', {});
show('10 tabs');
await s.stop(); srv.close();
