// Under its private display the browser keeps the GL driver out of the
// processes that never draw with it (its own, which holds the person's
// window, and Xvfb without GLX: together about 100 MiB less), and a web
// process gives back the pages that loading the driver's compiler (LLVM)
// touched (about 35 MiB), while pages still draw with GL in their web
// process: WebGL, a 3D-transformed layer, and the screenshot that shows both.
// And the garbage an agent's snapshots leave in a page's process comes back
// as they go, not seconds later. And every process of the browser gives
// back the loader's relocation tables once they are read (about 15 MiB).
// And WebKit's web and network processes load the speech synthesiser
// (flite, 3.6 MiB each) only once a page speaks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
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
/** The browser's web process with the most anonymous memory: { pid, anonymous (MiB) }. */
const largestWebProcess = (browser) => descendants(browser)
  .filter((p) => /^WebKitWebProces/.test(p.comm))
  .map((p) => ({ pid: p.pid, anonymous: anonymousMiB(p.pid) }))
  .sort((a, b) => b.anonymous - a.anonymous)[0];
const glDriversOf = (pid) => [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8')
  .split('\n').map((line) => line.split(/\s+/)[5]).filter((file) => file && GL_DRIVER.test(file)))];

/** The real flite libraries a process maps (the stand-in lives in the profile's speech-stand-in folder). */
const fliteOf = (pid) => [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8')
  .split('\n').map((line) => line.split(/\s+/)[5])
  .filter((file) => file && /\/libflite[^/]*\.so/.test(file) && !/\/speech-stand-in\//.test(file)))];
const standInOf = (pid) => readFileSync(`/proc/${pid}/maps`, 'utf8').includes('/speech-stand-in/');

const PAGE = 4096;
/** Where a process maps the first segment of a library matching `name`: its start and file. */
function firstSegment(pid, name) {
  for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const [range, , offset, , , file] = line.split(/\s+/);
    if (file && name.test(file) && /^0+$/.test(offset)) return { start: parseInt(range.split('-')[0], 16), file };
  }
  return null;
}
/** A library's relocation table (.rela.dyn): its address from the load address, and size. */
function relocationTable(file) {
  const sections = execFileSync('readelf', ['-SW', file], { encoding: 'utf8' });
  const [, address, , size] = /\.rela\.dyn\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/.exec(sections) ?? [];
  assert.ok(address, `${file} has a .rela.dyn section`);
  return { address: parseInt(address, 16), size: parseInt(size, 16) };
}
/** How many of the whole pages of [from, to) are resident in the process (pagemap's present bit). */
function residentPages(pid, from, to) {
  const first = Math.ceil(from / PAGE);
  const count = Math.floor(to / PAGE) - first;
  const entries = Buffer.alloc(count * 8);
  const fd = openSync(`/proc/${pid}/pagemap`, 'r');
  try {
    readSync(fd, entries, 0, entries.length, first * 8);
  } finally {
    closeSync(fd);
  }
  let present = 0;
  for (let i = 0; i < count; i++) if (entries.readBigUInt64LE(i * 8) >> 63n) present++;
  return { present, count };
}

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
    const webProcess = () => largestWebProcess(suite.session.browser.proc.pid);
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

  it('what a script that awaits left behind is given back once it answers', logged(async () => {
    // The relief is asked as the eval answers: asked as it was sent, it ran
    // at the script's first await, before anything was allocated, and the
    // garbage stayed until the engine's own timers (a second or more).
    await call('open', { url: suite.fixtures.url('/form.html') });
    const webProcess = () => largestWebProcess(suite.session.browser.proc.pid);
    const before = webProcess();
    const made = await call('eval', { script: `let kept = [];
      for (let i = 0; i < 40; i++) {
        kept.push(Array.from({ length: 100000 }, (_, j) => ({ i, j })));
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      const made = kept.length;
      kept = null;
      return made` });
    assert.equal(made.value, 40, 'the script made its garbage');
    // Messages reach the page in order: once this answers, the relief
    // asked before it has run.
    const reply = await suite.mcp.callTool('snapshot', {});
    assert.ok(!reply.isError, JSON.stringify(reply).slice(0, 300));
    const after = webProcess();
    assert.equal(after.pid, before.pid, 'the page stayed in its process');
    const grew = after.anonymous - before.anonymous;
    assert.ok(grew < 30, `the page's process grew ${grew.toFixed(1)} MiB (${before.anonymous.toFixed(1)} -> ${after.anonymous.toFixed(1)})`);
  }));

  it('the browser, web and network processes give back the loader\'s relocation tables', logged(async () => {
    // libwebkit2gtk's is 6.6 MiB (WebKitGTK 2.50), read once as each
    // process starts; before src-rust/loader_tables.rs all of it stayed
    // resident in each of them.
    await call('open', { url: suite.fixtures.url('/form.html') });
    const browser = suite.session.browser.proc.pid;
    const processes = [{ pid: browser, comm: 'sovereign-browser' }, ...descendants(browser)
      .filter((p) => /^WebKit(WebProces|NetworkPr)/.test(p.comm))];
    assert.ok(processes.some((p) => /^WebKitNetworkPr/.test(p.comm)), 'the network process runs');
    assert.ok(processes.some((p) => /^WebKitWebProces/.test(p.comm)), 'a web process runs');
    const webkit = /\/libwebkit2gtk-[^/]*\.so/;
    const table = relocationTable(firstSegment(browser, webkit).file);
    assert.ok(table.size > 1 << 20, `a relocation table of megabytes: ${table.size} bytes`);
    for (const p of processes) {
      const segment = firstSegment(p.pid, webkit);
      assert.ok(segment, `${p.comm} maps libwebkit2gtk`);
      const from = segment.start + table.address;
      const { present, count } = residentPages(p.pid, from, from + table.size);
      assert.ok(present <= count / 20, `${p.comm} (${p.pid}): ${present} of the table's ${count} pages resident`);
    }
  }));

  it('WebKit\'s web and network processes load flite only once a page speaks, and the page hears it', logged(async () => {
    await call('open', { url: suite.fixtures.url('/form.html') });
    const browser = suite.session.browser.proc.pid;
    const children = () => descendants(browser).filter((p) => /^WebKit(WebProces|NetworkPr)/.test(p.comm));
    assert.ok(fliteOf(browser).length >= 10, `the browser's own process links flite: ${fliteOf(browser)}`);
    assert.ok(children().some((p) => /^WebKitNetworkPr/.test(p.comm)), 'the network process runs');
    for (const p of children()) {
      assert.deepEqual(fliteOf(p.pid), [], `${p.comm} (${p.pid}) maps no flite before a page speaks`);
      assert.ok(standInOf(p.pid), `${p.comm} (${p.pid}) maps the stand-in`);
    }

    const heard = (await call('eval', { script: `new Promise((resolve) => {
      const voices = speechSynthesis.getVoices().map((v) => v.name + '/' + v.lang);
      const said = new SpeechSynthesisUtterance('hello');
      const events = [];
      said.onstart = () => events.push('start');
      said.onend = () => { events.push('end'); resolve({ voices, events }); };
      said.onerror = (e) => { events.push('error ' + e.error); resolve({ voices, events }); };
      speechSynthesis.speak(said);
    })` })).value;
    assert.ok(heard.voices.length >= 1, `the page lists flite's voices: ${JSON.stringify(heard)}`);
    assert.ok(heard.voices.every((v) => /\/en-US$/.test(v)), JSON.stringify(heard.voices));
    assert.deepEqual(heard.events, ['start', 'end'], 'the utterance was spoken to its end');

    const speaking = children().filter((p) => fliteOf(p.pid).length > 0);
    assert.equal(speaking.length, 1, `one process loaded flite: ${JSON.stringify(speaking)}`);
    assert.match(speaking[0].comm, /^WebKitWebProces/, 'the page\'s web process');
    const network = children().find((p) => /^WebKitNetworkPr/.test(p.comm));
    assert.deepEqual(fliteOf(network.pid), [], 'the network process still maps none');
    // It still answers as before.
    assert.equal((await call('eval', { script: '6 * 7' })).value, 42);
  }));
});
