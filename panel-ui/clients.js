// "Connect a client": server address, MCP endpoint and ready-to-paste
// configuration for Claude Code, Roo Code and Cursor (shapes as in
// docs/clients.md), filled with this server's URL and the agents' token
// (which the browser sends only to the person's panel).

import { $, $$, setText, copyWithFeedback } from './dom.js';

// Tools Roo Code may run without asking (read-only ones), as in docs/clients.md.
const ROO_ALWAYS_ALLOW = ['login_status', 'get_url', 'get_title', 'snapshot', 'tab_list'];

function json(value) {
  // Two-space JSON, with short arrays and the headers object kept on one line like the docs.
  return JSON.stringify(value, null, 2)
    .replace(/\[\n\s+([^\]]*?)\n\s+\]/g, (_, inner) => `[${inner.split(/,\n\s+/).join(', ')}]`)
    .replace(/\{\n\s+("Authorization": "[^"]*")\n\s+\}/g, '{ $1 }');
}

export function snippets({ mcpUrl, agentUrl, token, tokenRequired }) {
  const useToken = tokenRequired !== false;
  const shownToken = token || '<TOKEN>';
  const headers = useToken ? { Authorization: `Bearer ${shownToken}` } : undefined;

  const claude = useToken
    ? `claude mcp add --transport http sovereign-browser ${mcpUrl} \\\n  --header "Authorization: Bearer ${shownToken}"`
    : `claude mcp add --transport http sovereign-browser ${mcpUrl}`;

  const roo = json({
    mcpServers: {
      'sovereign-browser': {
        type: 'streamable-http',
        url: mcpUrl,
        ...(headers ? { headers } : {}),
        alwaysAllow: ROO_ALWAYS_ALLOW,
        disabled: false,
      },
    },
  });

  const cursor = json({
    mcpServers: {
      'sovereign-browser': {
        url: mcpUrl,
        ...(headers ? { headers } : {}),
      },
    },
  });

  const other = [
    `MCP (Streamable HTTP)  ${mcpUrl}`,
    `WebSocket (/agent)     ${agentUrl}`,
    useToken ? `Header (both)          Authorization: Bearer ${shownToken}` : 'Header                 (none: the token is off)',
  ].join('\n');

  return { 'claude-code': claude, 'roo-code': roo, cursor, other };
}

export function initClients({ getToken }) {
  let lastKey = '';

  // Copy buttons that copy the text of another element.
  for (const button of $$('[data-copy-from]')) {
    button.addEventListener('click', () => {
      const source = document.getElementById(button.dataset.copyFrom);
      if (source) copyWithFeedback(button, source.textContent);
    });
  }

  // The client tabs: a WAI-ARIA tablist (arrow keys, Home, End).
  const tabs = $$('[data-client-tab]');
  function select(tab, focus = false) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).hidden = !on;
    }
    if (focus) tab.focus();
  }
  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (event) => {
      const i = tabs.indexOf(tab);
      let next = null;
      if (event.key === 'ArrowRight') next = tabs[(i + 1) % tabs.length];
      else if (event.key === 'ArrowLeft') next = tabs[(i - 1 + tabs.length) % tabs.length];
      else if (event.key === 'Home') next = tabs[0];
      else if (event.key === 'End') next = tabs[tabs.length - 1];
      if (next) {
        event.preventDefault();
        select(next, true);
      }
    });
  }

  return {
    render(state) {
      const server = state.server || {};
      const address = server.address || location.origin;
      const mcpUrl = server.mcp_url || `${address}/mcp`;
      const agentUrl = server.agent_url || `${address.replace(/^http/, 'ws')}/agent`;
      const token = getToken();
      const key = JSON.stringify([address, mcpUrl, agentUrl, server.token_required, server.version, token]);
      if (key === lastKey) return;
      lastKey = key;
      setText($('#server-address'), address);
      setText($('#mcp-url'), mcpUrl);
      setText($('#agent-url'), agentUrl);
      setText($('#server-version'), server.version ? `v${server.version}` : '');
      const all = snippets({ mcpUrl, agentUrl, token, tokenRequired: server.token_required });
      for (const [client, text] of Object.entries(all)) {
        setText($(`#client-config pre[data-client="${client}"]`), text);
      }
      $('#token-note').hidden = server.token_required === false;
    },
  };
}
