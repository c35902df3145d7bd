// Elements as a model picks them: by role and name in the snapshot text,
// never by selectors a model does not see.
import { callText } from './mcp.mjs';
import { parseSnapshot } from './snapshot.mjs';
import { waitFor } from './wait.mjs';

/** The snapshot's nodes, as parseSnapshot reads them. */
export async function snapshotNodes(mcp) {
  return parseSnapshot(await callText(mcp, 'snapshot')).nodes;
}

/**
 * The ref of the first element of `role` whose name is `name` (a string, a
 * RegExp, or null for any), once the page shows one. A control's role is
 * written with a colon when its value follows ("combobox: =").
 */
export async function pickRef(mcp, role, name = null) {
  const matches = (n) => n.ref && n.role.replace(/:$/, '') === role
    && (name === null || (name instanceof RegExp ? name.test(n.name ?? '') : n.name === name));
  const found = await waitFor(async () => (await snapshotNodes(mcp)).find(matches), `a ${role} named ${name}`);
  return found.ref;
}
