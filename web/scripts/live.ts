// The part of a page that follows the cluster without a reload (web/templates/live.ts): #live is
// re-read from its data-live-url every 3 s while the page is shown (the SPEC's status-card
// cadence; a hidden tab waits and re-reads as soon as it is shown again), swapped in only when
// the answer differs from what is on screen, and only the `data-announce` texts that changed are
// read out through #live-announcer. Folded parts stay open and focus stays on its control
// across a swap. Other scripts hear of each swap through the `den:live` event. The answer may
// also carry other parts of the page (`<template data-live-part="key">`): each is swapped into
// the page's `[data-live-part="key"]` the same way, and announces nothing.

const LIVE_EVERY_MS = 3000;

const live = document.querySelector<HTMLElement>('#live');
const announcer = document.querySelector<HTMLElement>('#live-announcer');

function announcements(root: ParentNode): Map<string, string> {
  return new Map([...root.querySelectorAll<HTMLElement>('[data-announce-key]')].map((el) => [el.dataset.announceKey ?? '', el.dataset.announce ?? '']));
}

/** Open folds (`details[data-fold]`) of `from`, opened the same in `to`. */
function carryFolds(from: ParentNode, to: ParentNode): void {
  const open = new Set([...from.querySelectorAll<HTMLDetailsElement>('details[data-fold][open]')].map((d) => d.dataset.fold));
  for (const d of to.querySelectorAll<HTMLDetailsElement>('details[data-fold]')) d.open = open.has(d.dataset.fold);
}

/** A way to find the focused control again in the new content: its id, else its accessible label. */
function focusKey(root: HTMLElement): string | undefined {
  const el = document.activeElement;
  if (!(el instanceof HTMLElement) || !root.contains(el)) return undefined;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const label = el.getAttribute('aria-label');
  return label ? `${el.tagName.toLowerCase()}[aria-label="${CSS.escape(label)}"]` : undefined;
}

function announce(texts: string[]): void {
  if (announcer && texts.length > 0) announcer.textContent = texts.join(' ');
}

/** Puts `content` in place of what `region` holds when it differs; false when it was the same. */
function replaceIfChanged(region: HTMLElement, content: DocumentFragment): boolean {
  carryFolds(region, content);
  const holder = document.createElement('div');
  holder.append(content.cloneNode(true));
  if (holder.innerHTML === region.innerHTML) return false;
  const focused = focusKey(region);
  region.replaceChildren(content);
  if (focused) region.querySelector<HTMLElement>(focused)?.focus();
  return true;
}

/** The parts the answer carries for other places on the page, swapped there and taken out of the answer. */
function swapParts(fresh: DocumentFragment): void {
  for (const carried of [...fresh.querySelectorAll<HTMLTemplateElement>('template[data-live-part]')]) {
    carried.remove();
    const place = document.querySelector<HTMLElement>(`[data-live-part="${CSS.escape(carried.dataset.livePart ?? '')}"]:not(template)`);
    if (place && replaceIfChanged(place, carried.content)) document.dispatchEvent(new CustomEvent('den:live-part', { detail: carried.dataset.livePart }));
  }
}

function swap(region: HTMLElement, text: string): void {
  const fresh = document.createElement('template');
  fresh.innerHTML = text;
  swapParts(fresh.content);
  const before = announcements(region);
  if (!replaceIfChanged(region, fresh.content)) return;
  const after = announcements(region);
  const changed = [...after].filter(([key, said]) => before.get(key) !== said).map(([, said]) => said);
  const gone = [...before.keys()].filter((key) => !after.has(key)).map((key) => `${key} is no longer listed.`);
  announce([...changed, ...gone]);
  document.dispatchEvent(new CustomEvent('den:live'));
}

/** The thing the page is about is gone (deleted in another tab): say so once and stop. */
function gone(region: HTMLElement): void {
  const note = document.createElement('p');
  note.className = 'notice warning';
  note.append('This no longer exists: it was deleted, or you may no longer see it. ');
  const back = document.createElement('a');
  back.href = '/';
  back.textContent = 'Back to the dashboard';
  note.append(back);
  region.replaceChildren(note);
  announce([note.textContent ?? '']);
  document.dispatchEvent(new CustomEvent('den:live'));
}

let timer: number | undefined;
let inFlight = false;
let slowPartsAt = -Infinity;

async function refresh(region: HTMLElement, url: string): Promise<void> {
  if (inFlight || document.visibilityState !== 'visible') return;
  inFlight = true;
  // Slow parts are due by the clock, not by a count of polls: a round skipped while an answer
  // was still on its way must not push them a whole round later.
  const slowEvery = Number(region.dataset.liveSlowEvery) || 0;
  const slow = slowEvery > 0 && performance.now() - slowPartsAt >= (slowEvery - 0.5) * LIVE_EVERY_MS;
  if (slow) slowPartsAt = performance.now();
  try {
    const headers: Record<string, string> = { Accept: 'text/html', 'X-Den-Fragment': 'live', ...(slow ? { 'X-Den-Slow-Parts': '1' } : {}) };
    const res = await fetch(url, { headers, credentials: 'same-origin' });
    if (res.redirected || res.status === 401) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
      return;
    }
    if (res.status === 404) {
      window.clearInterval(timer);
      gone(region);
      return;
    }
    if (res.ok) swap(region, await res.text());
  } catch {
    // Offline for a moment: the next round tries again.
  } finally {
    inFlight = false;
  }
}

const url = live?.dataset.liveUrl;
if (live && url) {
  timer = window.setInterval(() => void refresh(live, url), LIVE_EVERY_MS);
  document.addEventListener('visibilitychange', () => void refresh(live, url));
}
