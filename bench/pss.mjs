// Memory of a browser's process tree: proportional set size (PSS), so
// pages shared between processes are not counted twice. The private Xvfb a
// browser started under --headless is in its tree and counts: running the
// browser takes it.
import { readFileSync } from 'node:fs';
import { readProcs } from '../tests/support/procs.mjs';
import path from 'node:path';

const round = (x, digits = 1) => Number(x.toFixed(digits));

/** The program's file name (comm is cut at 15 characters). */
function programName(p) {
  try {
    const argv0 = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0')[0];
    if (argv0) return path.basename(argv0);
  } catch { /* exited meanwhile */ }
  return p.comm;
}

export function treePss(rootPid) {
  const procs = readProcs();
  const tree = [];
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift();
    const p = procs.get(pid);
    if (!p) continue;
    tree.push(p);
    for (const child of procs.values()) if (child.ppid === pid) queue.push(child.pid);
  }
  let totalKiB = 0;
  const processes = [];
  for (const p of tree) {
    try {
      const rollup = readFileSync(`/proc/${p.pid}/smaps_rollup`, 'utf8');
      const kib = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      totalKiB += kib;
      processes.push({ pid: p.pid, comm: programName(p), pssMiB: round(kib / 1024) });
    } catch { /* exited meanwhile */ }
  }
  return { totalMiB: round(totalKiB / 1024), processes, others: strangers(procs, tree) };
}

/**
 * WebKit processes outside the tree: they share its libraries' pages, so
 * while they run the tree's PSS reads lower than it is alone.
 */
function strangers(procs, tree) {
  const mine = new Set(tree.map((p) => p.pid));
  return [...procs.values()].filter((p) => !mine.has(p.pid) && /^WebKit/.test(p.comm)).length;
}

