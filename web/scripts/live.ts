// Lists kept live while a page is open: every element with `data-live-url` is re-fetched as
// the HTML fragment the server rendered it from (escaped there), every `data-live-every` ms,
// while the page is visible. A form marked `data-live-filter="<id>"` filters that list in place:
// its fields become the list's query (and the page's address), and the list is fetched at once.

const DEFAULT_EVERY_MS = 5000;

function say(list: HTMLElement, text: string | undefined): void {
  const state = list.dataset.liveState ? document.getElementById(list.dataset.liveState) : null;
  if (state && text !== undefined) state.textContent = text;
}

async function refresh(list: HTMLElement): Promise<void> {
  const url = list.dataset.liveUrl;
  if (!url) return;
  try {
    const res = await fetch(url, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
    if (res.redirected || res.status === 401) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
      return;
    }
    if (!res.ok) {
      say(list, `Could not refresh (${res.status}); reload the page to see why.`);
      return;
    }
    // A filter changed while this answer was on its way: the newer fetch fills the list.
    if (list.dataset.liveUrl !== url) return;
    list.innerHTML = await res.text();
    say(list, `Newest first; refreshed ${new Date().toLocaleTimeString()}.`);
  } catch {
    say(list, 'Offline for a moment; retrying.');
  }
}

function queryOf(form: HTMLFormElement): string {
  const params = new URLSearchParams();
  for (const [key, value] of new FormData(form)) if (typeof value === 'string' && value.trim()) params.set(key, value.trim());
  return params.toString();
}

for (const list of document.querySelectorAll<HTMLElement>('[data-live-url]')) {
  const every = Number(list.dataset.liveEvery) || DEFAULT_EVERY_MS;
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh(list);
  }, every);
}

document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  const list = form.dataset.liveFilter ? document.getElementById(form.dataset.liveFilter) : null;
  if (!list?.dataset.liveUrl) return;
  event.preventDefault();
  const query = queryOf(form);
  list.dataset.liveUrl = `${list.dataset.liveUrl.split('?')[0]}${query ? `?${query}` : ''}`;
  // The admin page's address keeps the filter, so a reload or a shared link shows the same list.
  if (new URL(form.action).pathname === window.location.pathname) window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}${window.location.hash}`);
  void refresh(list);
});
