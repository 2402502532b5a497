// The workspace page: the status card re-fetched every 3 s (an HTML fragment the server
// escaped), the log re-read every 5 s while its tab is shown, and keyboard-usable tabs.
// The Terminal tab's panel (#terminal) is filled by the terminal script, which listens for
// the `den:tab` event this script sends when a tab is opened; its script is loaded then.
import { loadTerminal } from './lib/terminal-loader.js';

const STATUS_EVERY_MS = 3000;
const LOGS_EVERY_MS = 5000;

const card = document.querySelector<HTMLElement>('#status-card');
const logsPanel = document.querySelector<HTMLElement>('#panel-logs');
const logs = document.querySelector<HTMLElement>('#logs');
const logsState = document.querySelector<HTMLElement>('#logs-state');
const tail = document.querySelector<HTMLSelectElement>('#tail');

async function refreshStatus(): Promise<void> {
  if (!card?.dataset.statusUrl) return;
  try {
    const res = await fetch(card.dataset.statusUrl, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
    if (res.redirected || res.status === 401) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
      return;
    }
    if (res.ok) card.innerHTML = await res.text();
  } catch {
    // Offline for a moment: the next poll tries again.
  }
}

async function refreshLogs(): Promise<void> {
  if (!logsPanel || logsPanel.hidden || !logs || !logsState || !logsPanel.dataset.logsUrl) return;
  try {
    const url = new URL(logsPanel.dataset.logsUrl, window.location.href);
    url.searchParams.set('tail', tail?.value ?? '200');
    const res = await fetch(url, { credentials: 'same-origin' });
    const body = (await res.json()) as { lines?: string; error?: string };
    if (res.ok) {
      const atBottom = logs.scrollTop + logs.clientHeight >= logs.scrollHeight - 8;
      logs.textContent = body.lines ?? '';
      logsState.textContent = body.lines ? `Last ${tail?.value ?? 200} lines, refreshed every 5 seconds.` : 'The log is empty.';
      if (atBottom) logs.scrollTop = logs.scrollHeight;
    } else {
      logsState.textContent = body.error ?? `The log could not be read (${res.status}).`;
    }
  } catch {
    logsState.textContent = 'The log could not be read; retrying.';
  }
}

function selectTab(tab: HTMLElement): void {
  const tabs = [...document.querySelectorAll<HTMLElement>('[role="tab"]')];
  for (const t of tabs) {
    const selected = t === tab;
    t.setAttribute('aria-selected', String(selected));
    t.tabIndex = selected ? 0 : -1;
    const panel = document.getElementById(t.getAttribute('aria-controls') ?? '');
    if (panel) panel.hidden = !selected;
  }
  const id = tab.id.replace(/^tab-/, '');
  if (id === 'terminal') loadTerminal(document.getElementById('terminal'));
  document.dispatchEvent(new CustomEvent('den:tab', { detail: { tab: id } }));
  if (id === 'logs') void refreshLogs();
}

document.querySelector('[role="tablist"]')?.addEventListener('click', (event) => {
  const tab = (event.target as HTMLElement).closest<HTMLElement>('[role="tab"]');
  if (tab) selectTab(tab);
});
document.querySelector('[role="tablist"]')?.addEventListener('keydown', (event) => {
  const e = event as KeyboardEvent;
  if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
  const tabs = [...document.querySelectorAll<HTMLElement>('[role="tab"]')];
  const i = tabs.indexOf(document.activeElement as HTMLElement);
  const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
  selectTab(next);
  next.focus();
});
tail?.addEventListener('change', () => void refreshLogs());

if (card) setInterval(() => void refreshStatus(), STATUS_EVERY_MS);
if (logsPanel) {
  void refreshLogs();
  setInterval(() => void refreshLogs(), LOGS_EVERY_MS);
}
