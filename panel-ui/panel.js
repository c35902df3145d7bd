// Sovereign Browser control panel: entry module.
//
// Talks to the browser over one WebSocket, /api/panel (see connection.js):
// tool calls out, `state` / `calls` / `call` pushes in. The connection is
// the person's: the browser accepts it only with the person's panel key,
// which came in the printed address (/?key=...) and is kept in this tab's
// session storage (key.js), never in a cookie. The agents' token comes in
// the state, for the client configuration snippets only.
//
// Test hooks (stable ids and attributes):
//   Header
//     #identity-badge[data-state=logged-in|logged-out|pending], #identity-badge-text,
//     #identity-badge-copy (copies the npub)
//     #connection[data-state=connecting|open|closed], #connection-text, #connection-retry
//     #token-banner, #token-form, #token-input (shown when the panel key is missing or refused)
//   Identity
//     #identity-status (text includes the full npub when logged in), #identity-npub,
//     #identity-copy, #signer-status[data-reachable=local|none|reachable|unreachable|unknown],
//     #auth-url (the approval link of a NIP-46 signer, when one is asked for),
//     #logout, #switch (focuses the login form; the form then calls switch_identity)
//   Login form
//     #login-form, #method-select (local|seed|readonly|nip46|nsigner),
//     fieldset[data-method=<method>] (only the chosen one is shown and enabled),
//     inputs named like the login parameters: nsec, privkey_hex, mnemonic, account,
//     passphrase, npub, pubkey_hex, bunker_url, transport (select: serial|unix|tcp|qrexec),
//     device, service (qrexec only), index, remember (checkbox), password (shown for
//     local/seed when remember is ticked),
//     .field-error[data-for=<field>] (error of a field: "nsec: not a valid nsec" shows
//     "not a valid nsec" under nsec; a field not shown now, or no field, goes to #login-error),
//     #login-error (form-level error), #login-message (e.g. waiting for approval),
//     #login-submit ("Log in", or "Switch identity" when logged in)
//   Remembered identities
//     #remembered-damaged (why the file was kept aside, when it was damaged)
//     #remembered > li[data-npub][data-method]; buttons [data-action=login] ("Log in" /
//     "Switch to"), [data-action=forget] then [data-action=forget-confirm] (or
//     [data-action=forget-cancel]); with an encrypted key, login opens form.unlock with
//     input[name=password] and [data-action=unlock]; its error: .field-error[data-for=password];
//     other errors: .row-error
//   Vault (sites' credentials agents use by name, never see)
//     #vault-section[data-state=none|locked|open], #vault-state, #vault-error;
//     form#vault-create (password, confirm), form#vault-unlock (password),
//     #vault-open with #vault-lock, #vault-entries > li[data-name] (.name, .origins,
//     .fields .pill, .asks when it asks each time; buttons [data-action=edit],
//     [data-action=remove]) and form#vault-entry (name, origins: one per line, user,
//     password, totp, checkbox ask_each_time); #vault-waiting-part (hidden while no use
//     waits) with #vault-waiting > li[data-id] (.what; buttons [data-answer=allow|deny])
//   Connect a client
//     #server-address, #mcp-url, #agent-url,
//     #client-config pre[data-client=claude-code|roo-code|cursor|other],
//     [data-client-tab=<client>] (tabs that show each snippet)
//   Sessions
//     #sessions tr[data-session-id][data-transport=mcp|agent|panel]
//     (#sessions-mcp and #sessions-agent tables); .you-pill marks this panel's own
//     session, which has no End button; others have button[data-action=end]
//   Contexts
//     #contexts tr[data-context=<name>][data-default=true|false] with .name, .kind
//     (your profile|ephemeral|kept), .identity, .sessions (agents' sessions working there),
//     .tabs; button[data-action=calls] (filters the call log to it),
//     button[data-action=logout] (shown when an agent's context is logged in) and
//     button[data-action=close] (not on the default);
//     #context-tabs tr[data-tab-id][data-tab-index][data-context] (agents' contexts' tabs)
//     with button[data-action=requests]
//     #routes tr[data-route-id][data-context] (every context's routes) with .url, .does,
//     .matched and button[data-action=remove]; #routes-allow (the person's yes to routes
//     in their own window)
//   Sessions' rows: td.context and data-context (the context the session works in)
//   Tabs (of the person's own, default context)
//     #tabs tr[data-tab-index][data-tab-id][data-front=true|false];
//     button[data-action=requests], button[data-action=switch], button[data-action=close];
//     #tabs-note (e.g. "log in first")
//   A tab's requests (opened by a tab's button[data-action=requests], or a call's)
//     #requests-section (hidden until opened), #requests-heading ("Requests of tab N",
//     "Requests of tab N in context NAME" for an agent's context's),
//     #requests tbody tr[data-request-id][data-status][data-failed=true|false] (.linked:
//     the requests of the call-log link that opened it), its URL is
//     button[data-action=details]; #requests-filter (URL), #requests-failed (checkbox),
//     #requests-close; #requests-har (saves the tab's requests as HAR in the files folder,
//     says where in #requests-note); #request-detail with #request-detail-body (headers and body)
//   Tool call log
//     #call-log tbody tr[data-tool][data-transport][data-context][data-ok=true|false][data-code];
//     td.requests button[data-action=requests][data-tab] (the requests its tab made)
//     (newest first, at most 500; rows hidden by the filter have the hidden attribute),
//     #log-filter (tool name), #log-context (""|a context's name), #log-transport (""|mcp|agent|panel), #log-errors (checkbox),
//     #log-pause (aria-pressed; text Pause/Resume), #log-clear, #log-count
//   Recordings (of agents' work)
//     #recorded-sessions tr[data-session][data-client] with .client .started .last .steps
//     .failed .kept and button[data-action=open]; #recordings-client, #recordings-disk,
//     #recordings-clear; #timeline-section (hidden until a session is opened),
//     #timeline tbody tr[data-n][data-tool][data-ok][data-tab] with .element .outcome and
//     button[data-action=details]; #timeline-tool, #timeline-tab, #timeline-failed;
//     #step-detail with #step-detail-body, #step-requests (opens the step's requests)
//   Done in your identities' names (the identity audit)
//     #audit tbody tr[data-action][data-allowed][data-decided][data-agent][data-origin]
//     with .time .identity .context .action .asked-by .decided .outcome;
//     #audit-identity (""|npub), #audit-action, #audit-refused, #audit-export, #audit-clear
//   Agents asking for you (ask_person)
//     #asks-section (hidden while none asks), #asks > li[data-key=<id>][data-tab=<tab id>]
//     [data-focused=true|false] (true: the request the address names, #ask=<id>, shown
//     first with its tab's address in .ask-url)
//     with .ask-message, input[name=note], button[data-answer=done|declined]
//   #toasts: short confirmations and errors.

import { $, setText } from './dom.js';
import { createConnection } from './connection.js';
import { rememberKey, takeKeyFromAddress } from './key.js';
import { initIdentity } from './identity.js';
import { initClients } from './clients.js';
import { initSessions } from './sessions.js';
import { initLog } from './log.js';
import { initNostr } from './nostr.js';
import { initNetwork } from './network.js';
import { initAsks } from './asks.js';
import { initContexts } from './contexts.js';
import { initAudit } from './audit.js';
import { initRecordings } from './recordings.js';
import { initVault } from './vault.js';

// First of all: the key leaves the address bar.
takeKeyFromAddress();

function start() {
  let state = null;

  // The agents' token, for the set-up snippets: the browser sends it here only.
  const getToken = () => (state && state.server && state.server.agent_token) || '';
  let conn = null;
  const call = (tool, params) => conn.call(tool, params);
  const network = initNetwork({ call });
  // A tab by id, from a call-log link: its index comes from the state.
  const showRequests = (tab, range) => {
    const known = state && (state.tabs || []).find((t) => t.id === tab.id);
    network.watch({
      id: tab.id,
      index: known ? known.index : tab.index ?? tab.id,
      context: known ? known.context : tab.context,
      own: !known || !state.contexts || (state.contexts.find((c) => c.default) || {}).context === known.context,
    }, range);
  };
  const log = initLog({ showRequests });
  const identity = initIdentity({ call });
  const clients = initClients({ getToken });
  const sessions = initSessions({ call, showRequests });
  const nostr = initNostr({ call });
  const asks = initAsks({ call });
  const audit = initAudit({ call });
  const recordings = initRecordings({ call, showRequests });
  const vault = initVault({ call });
  const contexts = initContexts({ call, showCalls: (name) => log.showContext(name), showRequests });
  // Addresses from this page's own origin until the browser says more.
  clients.render({ server: {} });

  function onEvent(name, data) {
    if (name === 'state' && data && typeof data === 'object') {
      state = data;
      log.setYou(data.you || null);
      identity.render(data);
      clients.render(data);
      sessions.render(data);
      network.tabs(data.tabs);
      nostr.render(data);
      asks.render(data);
      contexts.render(data);
      log.setContexts(data.contexts);
      audit.render(data);
      recordings.render(data);
      vault.renderWaiting(data.vault_uses || []);
      renderPause(Boolean(data.paused));
      document.body.classList.add('has-state');
    } else if (name === 'calls') {
      log.replace(data);
    } else if (name === 'call') {
      log.add(data);
    } else if (name === 'requests') {
      network.update(data);
    }
  }

  // ---- pausing the agents (a person takes over) ----------------------------

  const pauseButton = $('#pause-agents');
  function renderPause(paused) {
    pauseButton.setAttribute('aria-pressed', String(paused));
    pauseButton.classList.toggle('danger', paused);
    setText(pauseButton, paused ? 'Resume agents' : 'Pause agents');
  }
  pauseButton.addEventListener('click', async () => {
    const paused = pauseButton.getAttribute('aria-pressed') !== 'true';
    try {
      const result = await call('agents_pause', { paused });
      renderPause(Boolean(result.paused));
    } catch (err) {
      pauseButton.title = `Could not change the pause: ${err.message || err}`;
    }
  });

  // ---- connection indicator and token banner --------------------------------

  const indicator = $('#connection');
  const indicatorText = $('#connection-text');
  const retry = $('#connection-retry');
  const banner = $('#token-banner');
  let countdown = null;

  // Why the page stopped connecting, as the person reads it.
  const STOPPED = {
    'no-key': ['Needs your panel key', 'This panel needs your panel key.'],
    unproven: ['Not connected', 'The program at this address did not prove it holds this panel key, so nothing of the key was sent: the key is wrong, or this is not your browser.'],
    restarted: ['Browser restarted', 'The browser at this address is a new run. Press Reconnect (or reload this page) to connect to it.'],
    insecure: ['Not connected', 'Open the panel at its loopback address (http://127.0.0.1:…): only there can this page prove your key without sending it.'],
  };

  function onStatus(status) {
    indicator.dataset.state = status.state;
    clearInterval(countdown);
    retry.hidden = status.state !== 'closed' && status.state !== 'stopped';
    if (status.state === 'stopped') {
      document.body.classList.add('offline');
      const [short, long] = STOPPED[status.reason] || STOPPED.unproven;
      setText(indicatorText, short);
      setText($('#token-banner-title'), long);
      banner.hidden = false;
      return;
    }
    document.body.classList.toggle('offline', status.state !== 'open');
    if (status.state === 'open') {
      setText(indicatorText, 'Connected');
      banner.hidden = true;
      network.reconnected();
      audit.reconnected();
      recordings.reconnected();
      vault.refresh();
    } else if (status.state === 'connecting') {
      setText(indicatorText, status.everOpened ? 'Reconnecting…' : 'Connecting…');
    } else {
      const tick = () => {
        const left = Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
        setText(indicatorText, `${status.everOpened ? 'Disconnected' : 'Cannot connect'} · retrying in ${left} s`);
      };
      tick();
      countdown = setInterval(tick, 500);
      // Never connected: the key is missing or wrong (the page cannot tell
      // which from a refused WebSocket). Connected before: the browser may
      // have stopped, or restarted with another profile and key.
      if ((!status.everOpened || status.failures >= 3) && banner.hidden) {
        setText($('#token-banner-title'), status.everOpened
          ? 'Cannot reach the browser. Is it still running? If it was restarted with another profile, its panel key changed.'
          : 'This panel needs your panel key.');
        banner.hidden = false;
      }
    }
  }

  retry.addEventListener('click', () => conn.reconnect());

  $('#token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('#token-input');
    const value = input.value.trim();
    input.value = '';
    if (!value) return;
    // Kept for this tab only; the browser checks it when the page connects.
    rememberKey(value);
    conn.reconnect();
  });

  conn = createConnection({ onEvent, onStatus });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
