// The workspace page's "Apps and ports" card (web/templates/workspace-apps.ts): every 5 s while
// the page is shown, the ports listening in the pod are read from REST (one exec as the person)
// and listed with links to their previews (at the app's own origin when the server gives one); each declared app's button says whether its port
// listens. Built with DOM nodes and textContent, so nothing from the pod is parsed as HTML.

const PORTS_EVERY_MS = 5000;

interface ListeningPort {
  port: number;
  preview_path: string | null;
  /** Host-based address, when the server has an apps domain: preferred, the app gets its own origin. */
  app_url: string | null;
}

interface AppsAnswer {
  listening?: ListeningPort[];
  error?: string;
}

const appsCardEl = document.querySelector<HTMLElement>('#workspace-apps');
const portList = document.querySelector<HTMLElement>('#ports');
const portsState = document.querySelector<HTMLElement>('#ports-state');

function showPorts(ports: ListeningPort[]): void {
  if (!portList || !portsState) return;
  const items = ports.map(({ port, preview_path, app_url }) => {
    const li = document.createElement('li');
    const href = app_url ?? preview_path;
    if (href) {
      const a = document.createElement('a');
      a.href = href;
      a.target = '_blank';
      a.rel = 'noopener';
      a.textContent = `Port ${port}`;
      a.dataset.port = String(port);
      li.append(a);
    } else {
      li.textContent = `Port ${port}`;
    }
    return li;
  });
  portList.replaceChildren(...items);
  portsState.textContent = ports.length
    ? `${ports.length === 1 ? 'One port listens' : `${ports.length} ports listen`} in the workspace (refreshed every 5 seconds):`
    : 'Nothing listens on a TCP port in the workspace yet (refreshed every 5 seconds).';
}

function showAppStates(listening: Set<number> | undefined): void {
  for (const badge of document.querySelectorAll<HTMLElement>('[data-app-state]')) {
    const on = listening?.has(Number(badge.dataset.appState));
    badge.textContent = listening === undefined ? 'unknown' : on ? 'listening' : 'not listening';
    badge.classList.toggle('Running', on === true);
    badge.classList.toggle('Suspended', on !== true);
  }
}

async function refreshPorts(): Promise<void> {
  if (!appsCardEl?.dataset.appsUrl || !portsState || document.hidden) return;
  // Ports are read in the running pod: a starting, stopped or failed workspace has none to read.
  if (document.querySelector('#status-card .badge')?.getAttribute('data-phase') !== 'Running') {
    portList?.replaceChildren();
    portsState.textContent = 'The ports listening in the workspace are shown while it is Running.';
    showAppStates(undefined);
    return;
  }
  try {
    const res = await fetch(appsCardEl.dataset.appsUrl, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.status === 401) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
      return;
    }
    const body = (await res.json()) as AppsAnswer;
    if (res.ok && body.listening) {
      showPorts(body.listening);
      showAppStates(new Set(body.listening.map((p) => p.port)));
    } else {
      portList?.replaceChildren();
      portsState.textContent = body.error ?? `The ports could not be read (${res.status}).`;
      showAppStates(undefined);
    }
  } catch {
    portsState.textContent = 'The ports could not be read; retrying.';
  }
}

if (appsCardEl) {
  void refreshPorts();
  setInterval(() => void refreshPorts(), PORTS_EVERY_MS);
  document.addEventListener('visibilitychange', () => void refreshPorts());
}
