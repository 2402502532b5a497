// The workspace page: the log re-read every 5 s while its tab is shown and the workspace has a
// log to give (the status card's data-logs, kept current by live.ts every 3 s), and
// keyboard-usable tabs. The Terminal tab's panel (#terminal) is filled by the terminal script,
// which listens for the `den:tab` event this script sends when a tab is opened; its script is
// loaded then.
import { loadTerminal } from './lib/terminal-loader.js';

const LOGS_EVERY_MS = 5000;

const logsPanel = document.querySelector<HTMLElement>('#panel-logs');
const logs = document.querySelector<HTMLElement>('#logs');
const logsState = document.querySelector<HTMLElement>('#logs-state');
const tail = document.querySelector<HTMLSelectElement>('#tail');

/** A 409 (no running pod) stops the polling until the status card says the log is readable again. */
let logsRefused = false;

function cardSaysReadable(): boolean {
  return document.querySelector<HTMLElement>('#status-card')?.dataset.logs === 'readable';
}

function logsReadable(): boolean {
  return cardSaysReadable() && !logsRefused;
}

async function refreshLogs(): Promise<void> {
  if (!logsPanel || logsPanel.hidden || document.visibilityState !== 'visible' || !logs || !logsState || !logsPanel.dataset.logsUrl) return;
  if (!logsReadable()) {
    logsState.textContent = logsState.dataset.idle ?? '';
    return;
  }
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
      if (res.status === 409) logsRefused = true;
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
let wasReadable = cardSaysReadable();
document.addEventListener('den:live', () => {
  const readable = cardSaysReadable();
  if (readable === wasReadable) return;
  wasReadable = readable;
  logsRefused = false;
  void refreshLogs();
});
if (logsPanel) {
  void refreshLogs();
  setInterval(() => void refreshLogs(), LOGS_EVERY_MS);
}
