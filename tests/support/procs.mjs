// The machine's processes from /proc: pid, parent and command name.
import { readFileSync, readdirSync } from 'node:fs';

/** Every process: Map pid -> { pid, ppid, comm }. */
export function readProcs() {
  const procs = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      procs.set(Number(entry), { pid: Number(entry), ppid, comm });
    } catch { /* exited meanwhile */ }
  }
  return procs;
}

/** Every process below `pid` (children, their children...). */
export function descendants(pid) {
  const procs = [...readProcs().values()];
  const out = [];
  const walk = (parent) => {
    for (const p of procs) {
      if (p.ppid === parent) {
        out.push(p);
        walk(p.pid);
      }
    }
  };
  walk(pid);
  return out;
}
