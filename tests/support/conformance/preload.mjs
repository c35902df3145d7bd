// Lets the MCP conformance CLI start on Node 20. It imports fs.globSync
// (Node 22) for its tier-check command only, which the tests never run;
// on a Node without it, its import of fs gets one that says so.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./hooks.mjs', import.meta.url);
