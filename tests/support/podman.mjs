// Podman from the tests: run it, wait for a container's address to answer,
// and clean up. Podman runs with the settings scripts/container.sh writes
// (runc, ulimits within the machine's hard limits) through CONTAINERS_CONF.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { waitFor } from './wait.mjs';

const run = promisify(execFile);

/** The image the container tests use (scripts/container.sh builds it), or null. */
export const IMAGE = process.env.SOVEREIGN_IMAGE || null;

/** Runs `podman ...args`; resolves with its stdout, rejects with its stderr. */
export async function podman(...args) {
  try {
    const { stdout } = await run('podman', args, { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    return stdout;
  } catch (error) {
    error.message = `podman ${args.join(' ')}: ${error.stderr || error.message}`;
    throw error;
  }
}

/** podman inspect of one object, parsed. */
export async function inspect(kind, name) {
  return JSON.parse(await podman(kind, 'inspect', name))[0];
}

/** The gateway of podman's default network: the host, as containers reach it. */
export async function hostAddress() {
  const network = await inspect('network', 'podman');
  return network.subnets[0].gateway;
}

/** Waits until `base`/readyz answers 200. */
export async function untilReady(base, what, ms = 90_000) {
  await waitFor(async () => {
    try {
      return (await fetch(`${base}/readyz`)).status === 200;
    } catch {
      return false;
    }
  }, `${what} to be ready`, ms);
}

/** Removes containers, pods and volumes, ignoring those already gone. */
export async function remove({ containers = [], pods = [], volumes = [] }) {
  for (const name of containers) await podman('rm', '--force', '--time', '5', name).catch(() => {});
  for (const name of pods) await podman('pod', 'rm', '--force', name).catch(() => {});
  for (const name of volumes) await podman('volume', 'rm', '--force', name).catch(() => {});
}

/** A TCP port nothing listens on now, for a container's published port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
