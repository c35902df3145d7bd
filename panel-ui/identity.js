// Identity: who is logged in (identity-status.js), log out and switch, the
// login form (login-form.js) and the remembered identities (remembered.js),
// kept in step with the state the browser pushes.

import { $, setText, toast, describeError, copyWithFeedback } from './dom.js';
import { renderStatus } from './identity-status.js';
import { initLoginForm } from './login-form.js';
import { initRemembered } from './remembered.js';

// A bunker's approval link from a login's own answer is shown this long,
// until the pushed state carries it.
const AUTH_URL_HOLD_MS = 3000;

export function initIdentity({ call }) {
  let identity = { logged_in: false };
  let identityKey = '';
  let lastRemembered = [];
  // The auth_url from a login answer, shown until the state push carries it.
  let localAuthUrl = null;
  let localAuthTimer = null;
  let form = null;
  let formBuilding = false;

  const who = () => identity;

  function render(status, force = false) {
    const key = JSON.stringify([status, localAuthUrl]);
    if (!force && key === identityKey) return;
    identityKey = key;
    identity = status || { logged_in: false };
    const pendingUrl = identity.pending?.auth_url || (!identity.logged_in ? localAuthUrl : null);
    if (identity.logged_in) localAuthUrl = null;
    if (identity.logged_in || (!pendingUrl && !identity.pending)) form?.showMessage('');
    renderStatus(identity, pendingUrl);
    form?.update();
    // The remembered rows say which one is logged in.
    remembered.render(lastRemembered);
  }

  // A login's answer: the new identity at once, before the push.
  function onResult(result) {
    localAuthUrl = null;
    if (result && result.logged_in) render(result, true);
  }

  function onPending(url) {
    localAuthUrl = url || null;
    clearTimeout(localAuthTimer);
    localAuthTimer = setTimeout(() => {
      localAuthUrl = null;
      render(identity, true);
    }, AUTH_URL_HOLD_MS);
    render(identity, true);
  }

  const remembered = initRemembered({ call, identity: who, onResult, onPending });

  // The form is made from the login tool's declaration, asked for once
  // connected (again at the next push if that failed).
  async function buildForm() {
    if (form || formBuilding) return;
    formBuilding = true;
    try {
      form = await initLoginForm({ call, identity: who, onResult, onPending });
    } catch (error) {
      toast(`Could not load the login form: ${describeError(error)}`, 'error');
    } finally {
      formBuilding = false;
    }
  }

  $('#logout').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      const result = await call('logout', {});
      localAuthUrl = null;
      toast('Logged out', 'ok');
      if (result) render(result, true);
    } catch (error) {
      toast(`Could not log out: ${describeError(error)}`, 'error');
    } finally {
      button.disabled = false;
    }
  });

  $('#switch').addEventListener('click', () => form?.focus());

  $('#identity-badge-copy').addEventListener('click', (event) => {
    if (identity.npub) copyWithFeedback(event.currentTarget, identity.npub);
  });

  return {
    render(state) {
      buildForm();
      lastRemembered = Array.isArray(state.remembered) ? state.remembered : [];
      render(state.identity || { logged_in: false });
      remembered.render(lastRemembered);
      // A damaged file was kept aside, never replaced: say where it is.
      const damaged = $('#remembered-damaged');
      damaged.hidden = !state.remembered_damaged;
      setText(damaged, state.remembered_damaged || '');
    },
  };
}
