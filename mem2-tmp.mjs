import { readFileSync } from 'node:fs';
import { startLoggedIn } from './tests/support/session.mjs';
import { readProcs } from './tests/support/procs.mjs';
const s = await startLoggedIn();
const pid = s.browser.pid;
const procs = readProcs();
const tree = [...procs.values()].filter((p) => p.pid === pid || p.ppid === pid);
const total = new Map();
for (const p of tree) {
  if (p.comm === 'Xvfb') continue;
  const smaps = readFileSync(`/proc/${p.pid}/smaps`, 'utf8');
  let cur = '';
  for (const line of smaps.split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { cur = (m[1] || '[anon]').replace(/^.*\//, ''); continue; }
    const pss = /^Pss:\s+(\d+)/.exec(line);
    if (pss) { const k = `${p.comm.slice(0, 12)} ${cur}`; total.set(k, (total.get(k) ?? 0) + Number(pss[1])); }
  }
}
console.log([...total].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${(v / 1024).toFixed(1).padStart(6)} ${k}`).join('\n'));
await s.stop();
