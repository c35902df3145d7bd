// Opens the agent closure; assets/agent/*.js are its fragments, joined in name order by build.rs.
// Sovereign Browser agent library.
//
// Injected at document start into every frame, in an isolated script world: pages can
// neither see it nor break it by patching their own DOM prototypes, and it still sees the
// DOM. The host calls `__sovereignAgent.call(op, args)` and always gets a JSON string back:
// {"ok":true,"value":...} or {"ok":false,"code":"...","message":"..."}.
(function () {
  'use strict';

  // Injected twice into the same world: keep the first copy, and with it the ref tables.
  if (typeof globalThis.__sovereignAgent === 'object' && globalThis.__sovereignAgent !== null) {
    return;
  }
