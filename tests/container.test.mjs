// The container image and the Kubernetes pod template, run for real with
// podman: the image as built by scripts/container.sh (SOVEREIGN_IMAGE names
// it; without it these tests are skipped, and scripts/test.sh runs them in
// a stage of their own), driven over MCP from the host.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes, createECDH } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './support/browser.mjs';
import { startFixtureServer } from './support/fixture-server.mjs';
import { callError, callJson, callText, connectMcp } from './support/mcp.mjs';
import { refOf } from './support/snapshot.mjs';
import { IMAGE, freePort, hostAddress, inspect, podman, remove, untilReady } from './support/podman.mjs';
import { parseAllDocuments } from 'yaml';

const KUBECTL = path.join(REPO_ROOT, 'target/python-tests/bin/kubectl');
const privateKey = (n) => n.toString(16).padStart(64, '0');
const publicKeyOf = (n) => {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKey(n), 'hex'));
  return ecdh.getPublicKey('hex', 'compressed').slice(2);
};

// What a site keeps, to be found again after a restart.
const STORE = "document.cookie = 'ctx=in-the-container; Max-Age=86400; path=/'; localStorage.setItem('ctx', 'in-the-container')";
const READ = "({ cookie: document.cookie, local: localStorage.getItem('ctx') })";

describe('the container image', { skip: IMAGE ? false : 'set SOVEREIGN_IMAGE (scripts/container.sh builds the image and runs this)', timeout: 600_000 }, () => {
  const tag = randomBytes(4).toString('hex');
  const names = { containers: [], pods: [], volumes: [] };
  let dir;
  let fixtures;
  let token;
  let metricsToken; // the monitoring system's, as the StatefulSet reads it
  let panelKey;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-container-'));
    token = randomBytes(24).toString('hex');
    panelKey = randomBytes(24).toString('hex');
    metricsToken = randomBytes(24).toString('hex');
    // As a Secret is mounted: a file each, readable by the container's user.
    const secrets = path.join(dir, 'secrets');
    mkdirSync(secrets);
    writeFileSync(path.join(secrets, 'token'), `${token}\n`);
    writeFileSync(path.join(secrets, 'panel-key'), `${panelKey}\n`);
    writeFileSync(path.join(secrets, 'metrics-token'), `${metricsToken}\n`);
    chmodSync(dir, 0o755);
    chmodSync(secrets, 0o755);
    chmodSync(path.join(secrets, 'token'), 0o644);
    chmodSync(path.join(secrets, 'panel-key'), 0o644);
    chmodSync(path.join(secrets, 'metrics-token'), 0o644);
  });
  after(async () => {
    await fixtures?.close();
    await remove(names);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a container of the image on the volume; resolves with its base address. */
  const runContainer = async (name, volume) => {
    const port = await freePort();
    names.containers.push(name);
    await podman('run', '--detach', '--name', name,
      '--read-only', '--tmpfs', '/tmp', '--tmpfs', '/dev/shm',
      '--volume', `${volume}:/data`,
      '--volume', `${path.join(dir, 'secrets')}:/run/secrets:ro`,
      '--env', 'SOVEREIGN_TOKEN_FILE=/run/secrets/token',
      '--env', 'SOVEREIGN_PANEL_KEY_FILE=/run/secrets/panel-key',
      '--publish', `127.0.0.1:${port}:17777`,
      '--stop-timeout', '30',
      IMAGE);
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base, name);
    return { base, mcpUrl: `${base}/mcp`, token };
  };

  it('is small, runs as a user of its own under tini, and keeps its profile on /data', async (t) => {
    const image = await inspect('image', IMAGE);
    t.diagnostic(`image ${IMAGE}: ${(image.Size / 1e6).toFixed(0)} MB`);
    assert.equal(image.Config.User, '10001:10001');
    assert.deepEqual(image.Config.Entrypoint.slice(0, 2), ['/usr/bin/tini', '--']);
    assert.ok(Object.keys(image.Config.Volumes ?? {}).includes('/data'));
    assert.ok(Object.keys(image.Config.ExposedPorts ?? {}).includes('17777/tcp'));
  });

  it('serves MCP from the container: probes, secrets, login, a page of the host, snapshot and click, and a clean stop', async (t) => {
    const volume = `sovereign-test-${tag}`;
    names.volumes.push(volume);
    const browser = await runContainer(`sovereign-test-${tag}`, volume);
    // The host's pages, where the container reaches the host.
    fixtures = await startFixtureServer({ host: await hostAddress() });

    assert.equal(await (await fetch(`${browser.base}/healthz`)).text(), 'ok\n');
    assert.equal(await (await fetch(`${browser.base}/readyz`)).text(), 'ready\n');
    const logs = await podman('logs', `sovereign-test-${tag}`);
    assert.match(logs, /listening on http:\/\/0\.0\.0\.0:17777/);
    assert.ok(!logs.includes(token) && !logs.includes(panelKey), 'no secret in the logs');
    assert.equal((await fetch(browser.mcpUrl, { method: 'POST', headers: { Authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
    assert.equal((await fetch(`${browser.base}/metrics`)).status, 401);

    const mcp = await connectMcp(browser);
    try {
      await callJson(mcp, 'login', { method: 'local', privkey_hex: privateKey(7) });
      assert.equal((await callJson(mcp, 'login_status')).pubkey, publicKeyOf(7));
      await callJson(mcp, 'open', { url: fixtures.url('/form.html') });
      const snap = await callText(mcp, 'snapshot');
      assert.match(snap, /heading "Sign up"/);
      await callJson(mcp, 'click', { ref: refOf(snap, 'checkbox', 'I agree') });
      assert.equal((await callJson(mcp, 'eval', { script: "document.querySelector('#agree').checked" })).value, true);
      // (Not a secure context, this address: no Cache Storage; a cookie and local storage.)
      await callJson(mcp, 'eval', { script: STORE });
      const metrics = await (await fetch(`${browser.base}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).text();
      assert.match(metrics, /^sovereign_tool_calls_total\{tool="click",outcome="ok"\} 1$/m);
    } finally {
      await mcp.close();
    }

    // SIGTERM (podman stop): the browser ends well within the grace.
    const stopping = Date.now();
    await podman('stop', '--time', '30', `sovereign-test-${tag}`);
    const took = Date.now() - stopping;
    t.diagnostic(`stopped in ${took} ms`);
    const state = (await inspect('container', `sovereign-test-${tag}`)).State;
    assert.equal(state.ExitCode, 0, `exit code ${state.ExitCode}`);
    assert.ok(took < 25_000, `stopped in ${took} ms`);

    // A new container on the same volume finds the profile whole.
    const again = await runContainer(`sovereign-test-${tag}-again`, volume);
    const mcp2 = await connectMcp(again);
    try {
      await callJson(mcp2, 'login', { method: 'local', privkey_hex: privateKey(7) });
      await callJson(mcp2, 'open', { url: fixtures.url('/form.html') });
      const kept = (await callJson(mcp2, 'eval', { script: READ })).value;
      assert.deepEqual(kept, { cookie: 'ctx=in-the-container', local: 'in-the-container' });
      await callError(mcp2, 'click', { ref: 'e99999' }, 'ELEMENT_NOT_FOUND');
    } finally {
      await mcp2.close();
    }
  });

  it('the Kubernetes pod template plays in podman: two pods, two identities, each at its own address', async () => {
    // The base's StatefulSet, as kustomize renders it; its pod template
    // played as two Deployments (podman plays no StatefulSet), each with a
    // volume of its own and a port on the host's loopback.
    const { stdout } = await promisify(execFile)(KUBECTL, ['kustomize', path.join(REPO_ROOT, 'deploy/kubernetes/base')]);
    const set = parseAllDocuments(stdout).map((d) => d.toJS()).find((d) => d.kind === 'StatefulSet');
    assert.ok(set, 'the base renders a StatefulSet');
    const pods = [];
    for (const n of [0, 1]) {
      const name = `sovereign-kube-${tag}-${n}`;
      const port = await freePort();
      const template = structuredClone(set.spec.template);
      const container = template.spec.containers[0];
      container.image = IMAGE;
      container.ports[0].hostPort = port;
      container.ports[0].hostIP = '127.0.0.1';
      template.spec.volumes = template.spec.volumes
        .map((v) => (v.name === 'secrets' ? { name: 'secrets', hostPath: { path: path.join(dir, 'secrets'), type: 'Directory' } } : v))
        .concat([{ name: 'data', persistentVolumeClaim: { claimName: `${name}-data` } }]);
      const deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: { replicas: 1, selector: set.spec.selector, template },
      };
      const file = path.join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(deployment));
      names.pods.push(`${name}-pod`);
      names.volumes.push(`${name}-data`);
      await podman('kube', 'play', file);
      pods.push({ name, base: `http://127.0.0.1:${port}` });
    }
    for (const [n, pod] of pods.entries()) {
      await untilReady(pod.base, pod.name);
      const mcp = await connectMcp({ mcpUrl: `${pod.base}/mcp`, token });
      try {
        await callJson(mcp, 'login', { method: 'local', privkey_hex: privateKey(20 + n) });
      } finally {
        await mcp.close();
      }
    }
    // Each answers with its own identity, at its own address.
    for (const [n, pod] of pods.entries()) {
      const mcp = await connectMcp({ mcpUrl: `${pod.base}/mcp`, token });
      try {
        assert.equal((await callJson(mcp, 'login_status')).pubkey, publicKeyOf(20 + n), pod.name);
        // The monitoring system's token from the Secret reads its metrics.
        const metrics = await fetch(`${pod.base}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } });
        assert.equal(metrics.status, 200, `${pod.name}: /metrics with the metrics token`);
      } finally {
        await mcp.close();
      }
    }
  });
});
