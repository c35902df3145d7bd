// Start and stop the real browser binary for a test file.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const STDERR_KEEP = 256 * 1024;

const LISTEN_RE = /^sovereign-browser: listening on (http:\/\/\S+?):(\d+)\s*$/;
const MCP_RE = /^sovereign-browser: MCP endpoint (http:\/\/\S+\/mcp)\s*$/;
const PANEL_PREFIX = 'sovereign-browser: control panel ';
const PANEL_RE = /^sovereign-browser: control panel (http:\/\/\S+?)\/\?key=(\S+)\s*$/;

/** The binary to test: $SOVEREIGN_BIN, else the debug build of this repo. */
export function browserBinary(defaultRel = 'target/debug/sovereign-browser') {
  return process.env.SOVEREIGN_BIN || path.join(REPO_ROOT, defaultRel);
}

/**
 * Parse the three start-up lines from a stream of stdout text.
 * Feed it chunks; it returns the result object once all three are seen.
 */
export function startupLineParser() {
  let buf = '';
  const seen = {};
  return (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      let m;
      if ((m = LISTEN_RE.exec(line))) {
        seen.base = `${m[1]}:${m[2]}`;
        seen.port = Number(m[2]);
      } else if ((m = MCP_RE.exec(line))) {
        seen.mcpUrl = m[1];
      } else if (line.startsWith(PANEL_PREFIX)) {
        // Without the key when it was given from outside.
        seen.panelUrl = line.slice(PANEL_PREFIX.length).trim();
        seen.panelKey = (m = PANEL_RE.exec(line)) ? m[2] : null;
      }
    }
    if (seen.port && seen.mcpUrl && seen.panelUrl !== undefined) return seen;
    return null;
  };
}

/**
 * Spawn the browser: --headless --port 0 --ephemeral --no-panel --log-level info plus opts.args.
 * Resolves once the three start-up lines are printed (at most 60 s).
 * Returns { port, token, panelKey, base, mcpUrl, agentUrl, panelUrl, proc, stderr(), stderrTail(n), stop() }.
 */
export async function startBrowser(opts = {}) {
  const bin = opts.bin ?? browserBinary();
  if (!existsSync(bin)) {
    throw new Error(`browser binary not found: ${bin} (build it, or set SOVEREIGN_BIN)`);
  }
  const extra = opts.args ?? [];
  // Defaults that the extra arguments set again are left out (clap refuses repeats).
  const defaults = [['--port', '0'], ['--log-level', 'info']].filter(([flag]) => !extra.includes(flag));
  const args = opts.baseArgs ?? ['--headless', '--ephemeral', '--no-panel', ...defaults.flat()];
  const env = { ...process.env, WEBKIT_DISABLE_DMABUF_RENDERER: '1', ...(opts.env ?? {}) };
  // The agents' token is not printed (the panel address carries the
  // person's key instead): give the browser one, through the environment.
  let token = null;
  if (env.SOVEREIGN_TOKEN_FILE) {
    token = readFileSync(env.SOVEREIGN_TOKEN_FILE, 'utf8').trim();
  } else if (!extra.includes('--no-token')) {
    const i = extra.indexOf('--token');
    token = i >= 0 ? extra[i + 1] : (env.SOVEREIGN_TOKEN ||= randomBytes(32).toString('hex'));
  }
  const proc = spawn(bin, [...args, ...extra], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  let stderrBuf = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => {
    stderrBuf += d;
    if (stderrBuf.length > STDERR_KEEP) stderrBuf = stderrBuf.slice(-STDERR_KEEP);
    if (opts.echoStderr) process.stderr.write(d);
  });
  let stdoutBuf = '';
  proc.stdout.setEncoding('utf8');

  const exited = new Promise((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let hasExited = false;
  exited.then(() => { hasExited = true; });

  // Never leave a browser behind when the test process ends abruptly.
  const killOnExit = () => { try { proc.kill('SIGKILL'); } catch { /* gone */ } };
  process.once('exit', killOnExit);

  const parse = startupLineParser();
  let info;
  try {
    info = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`browser printed no start-up lines within ${STARTUP_TIMEOUT_MS} ms`)),
        STARTUP_TIMEOUT_MS,
      );
      proc.stdout.on('data', (d) => {
        stdoutBuf += d;
        const r = parse(d);
        if (r) { clearTimeout(timer); resolve(r); }
      });
      proc.once('error', (err) => { clearTimeout(timer); reject(err); });
      exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`browser exited before it was ready (code ${code}, signal ${signal})`));
      });
    });
  } catch (err) {
    killOnExit();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    err.message += `\n--- stdout ---\n${stdoutBuf}\n--- stderr (tail) ---\n${stderrBuf.slice(-8000)}`;
    throw err;
  }
  // Keep draining stdout so the pipe never fills.
  proc.stdout.on('data', (d) => { stdoutBuf += d; if (stdoutBuf.length > STDERR_KEEP) stdoutBuf = stdoutBuf.slice(-STDERR_KEEP); });

  const base = info.base;
  return {
    proc,
    pid: proc.pid,
    port: info.port,
    /** The agents' bearer token (null with --no-token). */
    token,
    /** The person's panel key, from the printed panel address. */
    panelKey: info.panelKey,
    base,
    mcpUrl: info.mcpUrl,
    agentUrl: `${base.replace(/^http/, 'ws')}/agent`,
    panelUrl: info.panelUrl,
    /**
     * DISPLAY and XAUTHORITY of the browser's private Xvfb display (from its
     * log), for X clients such as xdotool; null when it runs on another display.
     */
    x11Env() {
      const m = stderrBuf.match(/private Xvfb display display=(:\d+) authority=(\S+)/);
      return m ? { DISPLAY: m[1], XAUTHORITY: m[2] } : null;
    },
    stdout: () => stdoutBuf,
    stderr: () => stderrBuf,
    stderrTail: (n = 6000) => stderrBuf.slice(-n),
    exited,
    async stop() {
      if (hasExited) return exited;
      proc.kill('SIGTERM');
      const killer = setTimeout(() => { try { proc.kill('SIGKILL'); } catch { /* gone */ } }, STOP_GRACE_MS);
      const result = await exited;
      clearTimeout(killer);
      process.removeListener('exit', killOnExit);
      return result;
    },
  };
}

/**
 * Wrap a test body so that a failure prints the tail of the browser's
 * stderr (its log) next to the assertion.
 */
export function withBrowserLog(getBrowser, fn) {
  return async (t) => {
    try {
      return await fn(t);
    } catch (err) {
      const b = getBrowser();
      if (b) {
        const tail = b.stderrTail().trimEnd() || '(nothing)';
        process.stderr.write(`\n--- browser stderr (tail) for "${t.name}" ---\n${tail}\n--- end of browser stderr ---\n`);
      }
      throw err;
    }
  };
}
