// Read the snapshot text format:
//   url: ...
//   title: ...
//   e3 textbox "Email": current value
//     e12 button "Save" [disabled]
//   heading "Title" [level=1]
//   text: words
//   e4 combobox "Genre": Novel
//     options: "Novel", "Poetry" [disabled]     (a select's choices, or a datalist's
//     group "Europe": "Paris", "Berlin"          suggestions: nodes of role option,
//   e5 combobox "Browser"                        without refs)
//     suggestions: "Firefox", "Chromium"
import assert from 'node:assert/strict';

// The indent, the ref (eN, fNeN) when the element has one, the role, the name.
const NODE_RE = /^(\s*)(?:((?:f\d+)*e\d+) )?([a-z][\w-]*:?|\.\.\.)(?: "((?:[^"\\]|\\.)*)")?(.*)$/;

// One choice in an options line: its quoted name, then its states.
const CHOICE_RE = /"((?:[^"\\]|\\.)*)"((?: \[[\w-]+(?:=[^\]]*)?\])*)/g;
const CHOOSING_ROLES = new Set(['combobox', 'combobox:', 'listbox', 'listbox:', 'textbox', 'textbox:', 'searchbox', 'searchbox:']);

function flagsOf(text) {
  const flags = {};
  for (const f of text.matchAll(/\[([\w-]+)(?:=([^\]]*))?\]/g)) flags[f[1]] = f[2] ?? true;
  return flags;
}

/**
 * The choices a control's options line lists, as option nodes without refs;
 * `suggested` when they are a datalist's suggestions.
 */
function choiceNodes(list, control, line, suggested) {
  return [...list.matchAll(CHOICE_RE)].map((c) => ({
    depth: control.depth + 1, role: 'option', name: c[1].replace(/\\(.)/g, '$1'), ref: undefined, flags: flagsOf(c[2]), value: undefined, line, choice: true, suggested,
  }));
}

/** Parse a snapshot into { url, title, nodes: [{depth, role, name, ref, flags, value, line}] }. */
export function parseSnapshot(text) {
  const out = { url: undefined, title: undefined, nodes: [] };
  let control = null;
  for (const line of text.split('\n')) {
    const choices = /^(\s*)(options: |suggestions: |group "(?:[^"\\]|\\.)*"(?: \[disabled\])?: )(".*)$/.exec(line);
    if (choices && control && choices[1].length / 2 === control.depth + 1) {
      out.nodes.push(...choiceNodes(choices[3], control, line, choices[2] === 'suggestions: '));
      continue;
    }
    if (out.url === undefined && line.startsWith('url: ')) { out.url = line.slice(5).trim(); continue; }
    if (out.title === undefined && line.startsWith('title: ')) { out.title = line.slice(7).trim(); continue; }
    const m = NODE_RE.exec(line);
    if (!m) continue;
    if (line.startsWith('url: ') || line.startsWith('title: ')) continue;
    let rest = m[5];
    let value;
    const colon = rest.match(/^((?:\s*\[[^\]]*\])*)\s*:\s?(.*)$/);
    if (colon) { value = colon[2]; rest = colon[1]; }
    const node = {
      depth: m[1].length / 2,
      role: m[3],
      name: m[4] === undefined ? undefined : m[4].replace(/\\(.)/g, '$1'),
      ref: m[2],
      flags: flagsOf(rest),
      value,
      line,
    };
    out.nodes.push(node);
    control = node.ref && CHOOSING_ROLES.has(node.role) ? node : null;
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
