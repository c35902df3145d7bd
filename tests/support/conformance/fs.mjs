// node:fs, and the globSync that Node 20 lacks (see preload.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;

export function globSync() {
  throw new Error('fs.globSync needs Node 22 (only the conformance tier-check uses it)');
}
