// The workspace page's Activity tab: its list (#activity, rendered and escaped on the server) is
// re-read from `data-activity-url` every `data-activity-every` ms while the tab is shown, and at
// once when the tab opens. Its filter form (`data-activity-filter`) applies in place: the form's
// fields become the list's query.

const list = document.querySelector<HTMLElement>('#activity[data-activity-url]');
const panel = document.querySelector<HTMLElement>('#panel-activity');
const state = document.querySelector<HTMLElement>('#activity-state');
const form = document.querySelector<HTMLFormElement>('form[data-activity-filter]');
let query = '';

async function refreshActivity(): Promise<void> {
  if (!list || !panel || panel.hidden || document.visibilityState !== 'visible') return;
  const url = `${list.dataset.activityUrl}${query ? `?${query}` : ''}`;
  try {
    const res = await fetch(url, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
    if (res.redirected || res.status === 401) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
      return;
    }
    // A filter changed while this answer was on its way: the newer read fills the list.
    if (url !== `${list.dataset.activityUrl}${query ? `?${query}` : ''}`) return;
    if (!res.ok) {
      if (state) state.textContent = `The activity could not be read (${res.status}); reload the page to see why.`;
      return;
    }
    list.innerHTML = await res.text();
    if (state) state.textContent = `Newest first; refreshed ${new Date().toLocaleTimeString()}.`;
  } catch {
    if (state) state.textContent = 'Offline for a moment; retrying.';
  }
}

form?.addEventListener('submit', (event) => {
  event.preventDefault();
  const params = new URLSearchParams();
  for (const [key, value] of new FormData(form)) if (typeof value === 'string' && value.trim()) params.set(key, value.trim());
  query = params.toString();
  void refreshActivity();
});
document.addEventListener('den:tab', (event) => {
  if ((event as CustomEvent<{ tab: string }>).detail.tab === 'activity') void refreshActivity();
});
if (list) setInterval(() => void refreshActivity(), Number(list.dataset.activityEvery) || 5000);
