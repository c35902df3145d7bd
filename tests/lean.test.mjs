// Under its private display the browser keeps the GL driver out of the
// processes that never draw with it (its own, which holds the person's
// window, and Xvfb without GLX: together about 100 MiB less), while pages
// still draw with GL in their web process: WebGL, a 3D-transformed layer,
// and the screenshot that shows both.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loggedInSuite } from './support/session.mjs';
import { descendants } from './support/procs.mjs';
import { decodePng } from './support/png.mjs';

/** Shared objects of a GL driver (Mesa's EGL and DRI or gallium drivers, LLVM). */
const GL_DRIVER = /libEGL_mesa|_dri\.so|libgallium|libLLVM/;
const glDriversOf = (pid) => [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8')
  .split('\n').map((line) => line.split(/\s+/)[5]).filter((file) => file && GL_DRIVER.test(file)))];

describe('lean: GL only where pages draw', { timeout: 120_000 }, () => {
  const suite = loggedInSuite();
  const { call, logged } = suite;

  it('pages draw with WebGL and 3D transforms; the browser process and Xvfb load no GL driver', logged(async () => {
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
});
