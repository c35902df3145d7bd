// The browser's windows on its private display, as xdotool finds them.

/**
 * The browsing window's X id (not the panel's), or undefined while it is
 * not mapped yet. `xdo(...args)` runs xdotool on the browser's display.
 */
export function browsingWindow(xdo) {
  const named = (pattern) => {
    try {
      return xdo('search', '--onlyvisible', '--name', pattern).split('\n').filter(Boolean);
    } catch {
      return []; // xdotool exits 1 when nothing matches
    }
  };
  const panels = named('Control panel$');
  const found = named('Sovereign Browser').filter((id) => !panels.includes(id));
  return found.length === 1 ? found[0] : undefined;
}
