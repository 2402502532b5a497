// The workspace page's "Apps and ports" card (web/templates/workspace-apps.ts): the listening
// ports are a live part the status poll carries every other round (web/scripts/live.ts); once
// it is swapped in, each declared app's badge says whether its port listens, from the ports
// line's `data-listening` (absent while the ports cannot be read: "unknown").

function showAppStates(): void {
  const said = document.querySelector<HTMLElement>('#ports-state')?.dataset.listening;
  const listening = said === undefined ? undefined : new Set(said.split(' ').filter(Boolean).map(Number));
  for (const badge of document.querySelectorAll<HTMLElement>('[data-app-state]')) {
    const on = listening?.has(Number(badge.dataset.appState));
    badge.textContent = listening === undefined ? 'unknown' : on ? 'listening' : 'not listening';
    badge.classList.toggle('Running', on === true);
    badge.classList.toggle('Suspended', on !== true);
  }
}

document.addEventListener('den:live-part', (event) => {
  if ((event as CustomEvent<string>).detail === 'ports') showAppStates();
});
