// The Kubernetes manifests (deploy/kubernetes): rendered by kustomize as
// `kubectl apply -k` would, checked strictly against the API's schemas
// (kubernetes-validate, offline), and read for what an operator relies on.
// tests/container.test.mjs plays their pod template in podman.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './support/browser.mjs';

const run = promisify(execFile);
const PYTHON_DIR = path.join(REPO_ROOT, 'target/python-tests');
const KUBECTL = path.join(PYTHON_DIR, 'bin/kubectl');
const DEPLOY = path.join(REPO_ROOT, 'deploy/kubernetes');

const kustomize = async (dir) => (await run(KUBECTL, ['kustomize', path.join(DEPLOY, dir)])).stdout;
const documents = (text) => parseAllDocuments(text).map((d) => d.toJS()).filter(Boolean);
/** kubernetes-validate --strict on files: resolves with its output, rejects when one is not valid. */
const validate = (...files) => run('python3', ['-m', 'kubernetes_validate', '--strict', '--no-warn', ...files], {
  env: { ...process.env, PYTHONPATH: PYTHON_DIR },
});

describe('the Kubernetes manifests', { timeout: 120_000 }, () => {
  let dir;
  let base;
  let scaled;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sovereign-kube-'));
    base = await kustomize('base');
    scaled = await kustomize('overlays/scaled');
    writeFileSync(path.join(dir, 'base.yaml'), base);
    writeFileSync(path.join(dir, 'scaled.yaml'), scaled);
  });

  it('are valid, strictly, as rendered and as written', async () => {
    const written = readdirSync(path.join(DEPLOY, 'base'))
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
      .map((f) => path.join(DEPLOY, 'base', f));
    const { stdout } = await validate(path.join(dir, 'base.yaml'), path.join(dir, 'scaled.yaml'), ...written);
    assert.equal((stdout.match(/ passed for resource /g) ?? []).length, 3 + 3 + written.length, stdout);
    // The validator does refuse: a field the API does not have.
    const broken = base.replace('serviceName: sovereign-browser', 'serviceName: sovereign-browser\n  replica: 2');
    writeFileSync(path.join(dir, 'broken.yaml'), broken);
    await assert.rejects(validate(path.join(dir, 'broken.yaml')),
      (error) => /replica/.test(`${error.stdout}${error.stderr}`));
  });

  it('run each identity in a pod of its own, locked down, probed and reached by name', () => {
    const docs = documents(base);
    const set = docs.find((d) => d.kind === 'StatefulSet');
    const service = docs.find((d) => d.kind === 'Service');
    const policy = docs.find((d) => d.kind === 'NetworkPolicy');
    const pod = set.spec.template.spec;
    const [browser] = pod.containers;

    // A volume per pod for its profile, and a headless service for stable names.
    assert.equal(set.spec.volumeClaimTemplates[0].metadata.name, 'data');
    assert.ok(browser.volumeMounts.some((m) => m.name === 'data' && m.mountPath === '/data'));
    assert.equal(service.spec.clusterIP, 'None');
    assert.equal(set.spec.serviceName, service.metadata.name);
    assert.deepEqual(service.spec.selector, set.spec.selector.matchLabels);
    for (const [label, value] of Object.entries(set.spec.selector.matchLabels)) {
      assert.equal(set.spec.template.metadata.labels[label], value, `the pods carry ${label}`);
    }

    // Locked down: not root, no privilege, no capability, nothing written
    // outside its volumes.
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(browser.securityContext.allowPrivilegeEscalation, false);
    assert.equal(browser.securityContext.readOnlyRootFilesystem, true);
    assert.deepEqual(browser.securityContext.capabilities.drop, ['ALL']);
    const mounted = browser.volumeMounts.map((m) => m.mountPath).sort();
    assert.deepEqual(mounted, ['/data', '/dev/shm', '/run/secrets/sovereign', '/tmp']);

    // Secrets from files of a Secret, never values in the manifest.
    const secrets = pod.volumes.find((v) => v.secret);
    assert.equal(secrets.secret.secretName, 'sovereign-browser');
    const env = Object.fromEntries(browser.env.map((e) => [e.name, e.value]));
    assert.deepEqual(env, {
      SOVEREIGN_TOKEN_FILE: '/run/secrets/sovereign/token',
      SOVEREIGN_PANEL_KEY_FILE: '/run/secrets/sovereign/panel-key',
    });
    const example = documents(readFileSync(path.join(DEPLOY, 'base/secret.example.yaml'), 'utf8'))[0];
    assert.equal(example.metadata.name, secrets.secret.secretName);
    assert.deepEqual(Object.keys(example.stringData).sort(), ['panel-key', 'token']);

    // Probed, bounded, and stopped within its grace.
    assert.equal(browser.readinessProbe.httpGet.path, '/readyz');
    assert.equal(browser.livenessProbe.httpGet.path, '/healthz');
    assert.ok(browser.resources.requests.memory && browser.resources.limits.memory);
    const grace = Number(browser.args[browser.args.indexOf('--stop-grace') + 1]);
    assert.ok(grace < pod.terminationGracePeriodSeconds, 'the browser ends before Kubernetes kills it');

    // Only agents' pods reach port 17777.
    assert.deepEqual(policy.spec.podSelector.matchLabels, set.spec.selector.matchLabels);
    assert.deepEqual(policy.spec.ingress, [{
      from: [{ podSelector: { matchLabels: { 'sovereign-browser/agent': 'true' } } }],
      ports: [{ port: 17777, protocol: 'TCP' }],
    }]);
  });

  it('the overlay runs four, from a registry', () => {
    const set = documents(scaled).find((d) => d.kind === 'StatefulSet');
    assert.equal(set.spec.replicas, 4);
    assert.match(set.spec.template.spec.containers[0].image, /^registry\.example\.com\/sovereign-browser:/);
  });
});
