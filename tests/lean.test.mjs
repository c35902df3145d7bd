// Under its private display the browser keeps the GL driver out of the
// processes that never draw with it (its own, which holds the person's
// window, and Xvfb without GLX: together about 100 MiB less), and a web
// process gives back the pages that loading the driver's compiler (LLVM)
// touched (about 35 MiB), while pages still draw with GL in their web
// process: WebGL, a 3D-transformed layer, and the screenshot that shows both.
// And the garbage an agent's snapshots leave in a page's process comes back
// as they go, not seconds later.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loggedInSuite } from './support/session.mjs';
import { descendants } from './support/procs.mjs';
import { decodePng } from './support/png.mjs';
import { waitFor } from './support/wait.mjs';

/** Shared objects of a GL driver (Mesa's EGL and DRI or gallium drivers, LLVM). */
const GL_DRIVER = /libEGL_mesa|_dri\.so|libgallium|libLLVM/;
/** Resident KiB of a process's LLVM mappings: all, and those its own writes dirtied. */
function llvmResident(pid) {
  let inLlvm = false;
  const kib = { rss: 0, dirty: 0 };
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) inLlvm = /\/libLLVM[^/]*\.so/.test(header[1]);
    else if (inLlvm && /^Rss:/.test(line)) kib.rss += Number(line.split(/\s+/)[1]);
    else if (inLlvm && /^Private_Dirty:/.test(line)) kib.dirty += Number(line.split(/\s+/)[1]);
  }
  return kib;
}
/** A process's anonymous memory (its heaps), MiB. */
const anonymousMiB = (pid) => Number(/^Anonymous:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))[1]) / 1024;
const glDriversOf = (pid) => [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8')
  .split('\n').map((line) => line.split(/\s+/)[5]).filter((file) => file && GL_DRIVER.test(file)))];

describe('lean: GL only where pages draw', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;

  it('pages draw with WebGL and 3D transforms; the browser process and Xvfb load no GL driver', logged(async () => {
    // A page that draws nothing with GL: its web process keeps only LLVM's relocated data.
    await call('open', { url: suite.fixtures.url('/form.html') });
    const pageProcess = () => descendants(suite.session.browser.proc.pid)
      .filter((p) => /^WebKitWebProces/.test(p.comm) && glDriversOf(p.pid).length > 0)
      .map((p) => p.pid);
    await waitFor(() => {
      const resident = pageProcess().map((pid) => llvmResident(pid));
      if (resident.length > 0 && resident.every(({ rss, dirty }) => rss - dirty < 4096)) return resident;
      throw new Error(`resident KiB of LLVM in the web processes: ${JSON.stringify(resident)}`);
    }, 'LLVM\'s loaded pages given back by the web process (resident KiB)');

    await call('open', { url: suite.fixtures.url('/gl.html') });
    const read = (await call('eval', { script: "document.getElementById('gl').dataset.read" })).value;
    assert.equal(read, '0,255,0,255', 'WebGL cleared its canvas to green and read it back');

    const reply = await suite.mcp.callTool('screenshot', {});
    assert.ok(!reply.isError, JSON.stringify(reply).slice(0, 300));
    const png = decodePng(Buffer.from(reply.content.find((c) => c.type === 'image').data, 'base64'));
    const [r, g, b] = png.pixel(50, 50);
    assert.ok(g > 200 && r < 60 && b < 60, `the WebGL canvas shows green in the screenshot: ${r},${g},${b}`);
    const [r2, g2, b2] = png.pixel(200, 50);
    assert.ok(b2 > 200 && r2 < 60 && g2 < 60, `the turned box shows blue: ${r2},${g2},${b2}`);

    const browser = suite.session.browser.proc.pid;
    const processes = descendants(browser);
    const web = processes.filter((p) => /^WebKitWebProces/.test(p.comm));
    assert.ok(web.some((p) => glDriversOf(p.pid).length > 0), 'the page\'s web process draws with a GL driver');
    assert.deepEqual(glDriversOf(browser), [], 'the browser\'s own process holds no GL driver');
    const xvfb = processes.find((p) => p.comm === 'Xvfb');
    assert.ok(xvfb, 'the browser runs its own Xvfb');
    assert.deepEqual(glDriversOf(xvfb.pid), [], 'Xvfb serves no GLX, so it loads no GL driver');
  }));

  it('twenty snapshots of a 20,000-element page leave its process within 40 MiB of where it was', logged(async () => {
    // Without the relief (web-extension/relief.c) it grew 76 to 81 MiB: the
    // snapshots' garbage, collected and returned seconds later; with it, 15.
    await call('open', { url: suite.fixtures.url('/big-page.html') });
    const webProcess = () => descendants(suite.session.browser.proc.pid)
      .filter((p) => /^WebKitWebProces/.test(p.comm))
      .map((p) => ({ pid: p.pid, anonymous: anonymousMiB(p.pid) }))
      .sort((a, b) => b.anonymous - a.anonymous)[0];
    const before = webProcess();
    for (let i = 0; i < 20; i++) {
      const reply = await suite.mcp.callTool('snapshot', {});
      assert.ok(!reply.isError, JSON.stringify(reply).slice(0, 300));
    }
    const after = webProcess();
    assert.equal(after.pid, before.pid, 'the page stayed in its process');
    const grew = after.anonymous - before.anonymous;
    assert.ok(grew < 40, `the page's process grew ${grew.toFixed(1)} MiB (${before.anonymous} -> ${after.anonymous})`);
  }));
});
