  // audit: axe-core's accessibility violations, each element with its ref.

  // ---------------------------------------------------------------------------------------
  // Audit (axe-core, loaded into this world by the browser before the first one)

  // Elements listed per rule, at most; the count says how many there were.
  const AUDIT_NODES_MAX = 25;

  function opAudit(args, table) {
    const axe = globalThis.axe;
    if (!axe || typeof axe.run !== 'function') throw fail('INTERNAL', 'axe-core is not loaded in this document');
    const scope = args.selector ? querySelectorChecked(scopeOf(table), args.selector) : scopeOf(table);
    if (!scope) throw fail('ELEMENT_NOT_FOUND', `no element matches ${args.selector}`);
    // Frames are not audited: axe would reach them by messages across worlds.
    const options = { resultTypes: ['violations'], elementRef: true, iframes: false };
    return axe.run(scope, options).then((results) => ({
      violations: results.violations.map((rule) => ({
        id: rule.id,
        impact: rule.impact,
        help: rule.help,
        help_url: rule.helpUrl,
        count: rule.nodes.length,
        nodes: rule.nodes.slice(0, AUDIT_NODES_MAX).map((node) => auditNode(node, table)),
      })),
      passes: results.passes.length,
      incomplete: results.incomplete.length,
      engine: `axe-core ${axe.version}`,
      next: table.next,
    }));
  }

  function auditNode(node, table) {
    const el = node.element;
    const out = { target: node.target.map(String).join(' ') };
    if (el && el.nodeType === 1) out.ref = refText(refOf(table, el));
    if (node.failureSummary) out.fix = clamp(node.failureSummary, 500);
    return out;
  }
