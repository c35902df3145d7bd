// Each page logs what was clicked into #log (and window.hits), so that a run can tell
// whether the click reached the target, the element covering it, or nothing.
window.hits = [];
function hit(what) {
  window.hits.push(what);
  const log = document.getElementById('log');
  if (log) log.textContent = window.hits.join('\n');
}
document.addEventListener('click', (e) => {
  const el = e.target.closest('[data-hit]');
  hit(el ? el.dataset.hit : `nothing (${e.target.localName})`);
}, true);
