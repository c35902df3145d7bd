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
    // Four resources rendered twice, and each written document.
    const writtenDocs = written.reduce((n, f) => n + documents(readFileSync(f, 'utf8')).length, 0);
    assert.equal((stdout.match(/ passed for resource /g) ?? []).length, 4 + 4 + writtenDocs, stdout);
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
    const policy = docs.find((d) => d.kind === 'NetworkPolicy' && d.spec.policyTypes.includes('Ingress'));
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
      SOVEREIGN_METRICS_TOKEN_FILE: '/run/secrets/sovereign/metrics-token',
    });
    const example = documents(readFileSync(path.join(DEPLOY, 'base/secret.example.yaml'), 'utf8'))[0];
    assert.equal(example.metadata.name, secrets.secret.secretName);
    assert.deepEqual(Object.keys(example.stringData).sort(), ['metrics-token', 'panel-key', 'token']);

    // Probed, bounded, and stopped within its grace.
    assert.equal(browser.readinessProbe.httpGet.path, '/readyz');
    assert.equal(browser.livenessProbe.httpGet.path, '/healthz');
    assert.ok(browser.resources.requests.memory && browser.resources.limits.memory);
    const grace = Number(browser.args[browser.args.indexOf('--stop-grace') + 1]);
    assert.ok(grace < pod.terminationGracePeriodSeconds, 'the browser ends before Kubernetes kills it');

    // Only agents' pods, in namespaces the operator labelled, reach port 17777.
    assert.deepEqual(policy.spec.podSelector.matchLabels, set.spec.selector.matchLabels);
    assert.deepEqual(policy.spec.ingress, [{
      from: [{
        namespaceSelector: { matchLabels: { 'sovereign-browser/agents': 'allowed' } },
        podSelector: { matchLabels: { 'sovereign-browser/agent': 'true' } },
      }],
      ports: [{ port: 17777, protocol: 'TCP' }],
    }]);
  });

  it('let the browsers reach DNS and the internet, nothing in the cluster nor the metadata address', () => {
    const egress = documents(base).find((d) => d.kind === 'NetworkPolicy' && d.spec.policyTypes.includes('Egress'));
    const set = documents(base).find((d) => d.kind === 'StatefulSet');
    assert.deepEqual(egress.spec.podSelector.matchLabels, set.spec.selector.matchLabels);
    assert.deepEqual(egress.spec.policyTypes, ['Egress'], 'every other destination is refused');
    const [dns, web, ...more] = egress.spec.egress;
    assert.equal(more.length, 0);
    assert.deepEqual(dns.ports.map((p) => `${p.port}/${p.protocol}`).sort(), ['53/TCP', '53/UDP']);
    assert.deepEqual(dns.to, [{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    }]);
    assert.equal(web.ports, undefined, 'any port on the internet');
    // Which destinations the policy lets through, as a network plugin reads the blocks.
    const v4 = (a) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const inV4 = (ip, cidr) => {
      const [base, bits] = cidr.split('/');
      const size = 2 ** (32 - Number(bits));
      return Math.floor(v4(ip) / size) === Math.floor(v4(base) / size);
    };
    const allowed = (ip) => web.to.some(({ ipBlock }) => ipBlock.cidr.includes('.')
      && inV4(ip, ipBlock.cidr) && !(ipBlock.except ?? []).some((c) => inV4(ip, c)));
    for (const ip of ['169.254.169.254', '10.96.0.1', '10.244.1.7', '172.20.0.10', '192.168.49.2', '100.64.0.1', '127.0.0.1', '0.0.0.0']) {
      assert.equal(allowed(ip), false, `${ip} is not reachable`);
    }
    for (const ip of ['1.1.1.1', '93.184.216.34', '151.101.1.69']) assert.equal(allowed(ip), true, `${ip} is`);
    const v6 = web.to.find(({ ipBlock }) => ipBlock.cidr === '::/0').ipBlock.except;
    for (const block of ['fe80::/10', 'fc00::/7', '::1/128']) assert.ok(v6.includes(block), block);
  });

  it('the image builds with a plain `podman build .` on Debian 12\'s podman 4.3', () => {
    // Podman 4.3 decides which stages a build needs from --build-arg values
    // alone: a stage chosen through an ARG's default (FROM stage-${ARG}) is
    // skipped, and its name is then looked up as an image. So a FROM that
    // names a stage through an argument gives the default where it is used.
    const file = readFileSync(path.join(REPO_ROOT, 'Containerfile'), 'utf8');
    const stages = [...file.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    const chosen = [...file.matchAll(/^FROM (\S*\$\{[^}]+\}\S*)/gm)].map((m) => m[1])
      .filter((image) => stages.some((stage) => stage.startsWith(image.split('$')[0]) && image.split('$')[0] !== ''));
    assert.deepEqual(chosen, ['binaries-${BINARIES:-source}']);
    assert.match(file, /^ARG BINARIES$/m, 'no default where the argument is declared');
    assert.ok(stages.includes('binaries-source') && stages.includes('binaries-prebuilt'));
    assert.equal(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'), file, 'docker build reads the same');
  });

  it('the overlay runs four, from a registry', () => {
    const set = documents(scaled).find((d) => d.kind === 'StatefulSet');
    assert.equal(set.spec.replicas, 4);
    assert.match(set.spec.template.spec.containers[0].image, /^registry\.example\.com\/sovereign-browser:/);
  });
});
