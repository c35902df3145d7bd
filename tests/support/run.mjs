// Running a command as a user would from a shell, and reading back what
// it left on disk.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Runs a command; resolves { code, stdout, stderr }. `input`: its standard input. */
export function run(command, args, { env = {}, input = null, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (input !== null) child.stdin.end(input);
    else child.stdin.end();
  });
}

/** Every file under `dir`, with its text (latin1: bytes kept as they are). */
export function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [{ file: full, text: readFileSync(full, 'latin1') }];
  });
}
