// Fills the connection snippet with this server's address. The token stays
// in this page (taken from its own URL); it is never sent anywhere else.
const endpoint = `${location.origin}/mcp`;
const token = new URLSearchParams(location.search).get('token') ?? '<token>';
document.getElementById('endpoint').textContent = endpoint;
document.getElementById('claude').textContent =
  `claude mcp add --transport http sovereign-browser ${endpoint} --header "Authorization: Bearer ${token}"`;
