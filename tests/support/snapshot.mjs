// Read the snapshot text format:
//   url: ...
//   title: ...
//   - textbox "Email" [ref=e3]: current value
//     - button "Save" [ref=e12] [disabled]
import assert from 'node:assert/strict';

const NODE_RE = /^(\s*)- (\S+)(?: "((?:[^"\\]|\\.)*)")?(.*)$/;

/** Parse a snapshot into { url, title, nodes: [{depth, role, name, ref, flags, value, line}] }. */
export function parseSnapshot(text) {
  const out = { url: undefined, title: undefined, nodes: [] };
  for (const line of text.split('\n')) {
    if (out.url === undefined && line.startsWith('url: ')) { out.url = line.slice(5).trim(); continue; }
    if (out.title === undefined && line.startsWith('title: ')) { out.title = line.slice(7).trim(); continue; }
    const m = NODE_RE.exec(line);
    if (!m) continue;
    let rest = m[4];
    let value;
    const colon = rest.match(/^((?:\s*\[[^\]]*\])*)\s*:\s?(.*)$/);
    if (colon) { value = colon[2]; rest = colon[1]; }
    const flags = {};
    let ref;
    for (const f of rest.matchAll(/\[([\w-]+)(?:=([^\]]*))?\]/g)) {
      if (f[1] === 'ref') ref = f[2];
      else flags[f[1]] = f[2] ?? true;
    }
    out.nodes.push({
      depth: m[1].length / 2,
      role: m[2],
      name: m[3] === undefined ? undefined : m[3].replace(/\\(.)/g, '$1'),
      ref,
      flags,
      value,
      line,
    });
  }
  return out;
}

const clip = (s) => (s.length > 4000 ? s.slice(0, 4000) + '\n…' : s);

/** The node with this role (or any role when null) and name; asserts it exists and has a ref. */
export function findNode(text, role, name) {
  const { nodes } = parseSnapshot(text);
  const matches = nodes.filter((n) =>
    (role === null || n.role === role) &&
    (name instanceof RegExp ? name.test(n.name ?? '') : n.name === name));
  assert.ok(matches.length > 0, `no ${role ?? 'node'} "${name}" in snapshot:\n${clip(text)}`);
  assert.ok(matches[0].ref, `${role ?? 'node'} "${name}" has no ref in snapshot:\n${clip(text)}`);
  return matches[0];
}

/** The ref of that node, written as the snapshot prints it (eN). */
export function refOf(text, role, name) {
  return findNode(text, role, name).ref;
}

/** Every node that has a ref, as lines 'role "name" eN', in order. */
export function refList(text) {
  return parseSnapshot(text).nodes.filter((n) => n.ref).map((n) => `${n.role} "${n.name ?? ''}" ${n.ref}`);
}
