// The workspace page's Terminal tab: xterm.js connected to GET /w/{name}/terminal/ws, one
// websocket being one shell in the pod (server/terminal/). Nothing connects until the tab is
// first opened. The terminal follows its container's size; when the connection ends, an
// overlay says why (the server's own words: not running, refused, the shell exited) and
// offers to reconnect, which starts a new shell. The terminal keeps Tab and Esc for the shell;
// Shift+Esc leaves it (focus goes to the Full screen button, and full screen ends), as VS
// Code's terminal has its own key to move focus out. Full screen is the panel over the page.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import './terminal.css';
import { CLOSE, CSRF_PROTOCOL_PREFIX, TERMINAL_PROTOCOL, type ServerNotice } from '../terminal-protocol.js';
import { cssomDocument, stylesThroughCssom } from './lib/cssom-document.js';

/** Keystrokes and pastes go out in pieces under the server's message limit. */
const MAX_SEND = 64 << 10;
const RESIZE_DEBOUNCE_MS = 80;

const LIGHT = { background: '#ffffff', foreground: '#1b1c1f', cursor: '#1b1c1f', selectionBackground: '#b4d0ff' };
const DARK = { background: '#0f1013', foreground: '#e6e7ea', cursor: '#e6e7ea', selectionBackground: '#34507f' };

function describeClose(code: number, reason: string, notice: ServerNotice | undefined): string {
  if (notice?.type === 'error') return notice.message;
  if (notice?.type === 'exit') return notice.message ?? `The shell exited with code ${notice.code}.`;
  if (reason) return reason;
  if (code === CLOSE.goingAway) return 'den server is restarting.';
  return 'The connection to the workspace was lost.';
}

class BrowserTerminal {
  private readonly term: Terminal;
  private readonly fit = new FitAddon();
  private readonly screen: HTMLElement;
  private readonly overlay: HTMLElement;
  private readonly overlayText: HTMLElement;
  private readonly encoder = new TextEncoder();
  private socket: WebSocket | undefined;
  private resizeTimer: number | undefined;

  constructor(private readonly host: HTMLElement) {
    this.screen = document.createElement('div');
    this.screen.className = 'terminal-screen';
    this.overlay = document.createElement('div');
    this.overlay.className = 'terminal-overlay';
    this.overlay.setAttribute('role', 'alert');
    this.overlay.hidden = true;
    this.overlayText = document.createElement('p');
    const again = document.createElement('button');
    again.type = 'button';
    again.textContent = 'Reconnect';
    again.addEventListener('click', () => this.connect());
    this.overlay.append(this.overlayText, again);
    host.append(this.screen, this.overlay);

    const dark = window.matchMedia('(prefers-color-scheme: dark)');
    this.term = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
      fontSize: 14,
      scrollback: 5000,
      theme: dark.matches ? DARK : LIGHT,
      // Its styles through CSSOM, which the page's strict CSP allows (lib/cssom-document.ts).
      documentOverride: cssomDocument(document),
    });
    dark.addEventListener('change', () => (this.term.options.theme = dark.matches ? DARK : LIGHT));
    this.term.loadAddon(this.fit);
    stylesThroughCssom(document, () => this.term.open(this.screen));
    this.term.textarea?.setAttribute('aria-label', `Terminal of workspace ${host.dataset.workspace ?? ''}`);
    this.term.textarea?.setAttribute('aria-describedby', 'terminal-help');
    this.term.attachCustomKeyEventHandler((e) => {
      if (e.key !== 'Escape' || !e.shiftKey) return true;
      if (e.type === 'keydown') this.leave();
      return false;
    });
    this.fitNow();
    this.term.onData((data) => this.send(this.encoder.encode(data)));
    this.term.onBinary((data) => this.send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
    this.term.onResize(({ cols, rows }) => {
      if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: 'resize', cols, rows }));
    });
    new ResizeObserver(() => {
      window.clearTimeout(this.resizeTimer);
      this.resizeTimer = window.setTimeout(() => this.fitNow(), RESIZE_DEBOUNCE_MS);
    }).observe(this.screen);
  }

  /** Shift+Esc: focus out of the terminal, to the control after it, and out of full screen. */
  private leave(): void {
    setFullScreen(false);
    document.getElementById('terminal-fullscreen')?.focus();
  }

  private fitNow(): void {
    // A hidden panel has no size; fitting it would make a 1-column terminal.
    if (this.screen.clientWidth > 0 && this.screen.clientHeight > 0) this.fit.fit();
  }

  private send(bytes: Uint8Array): void {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    for (let i = 0; i < bytes.length; i += MAX_SEND) this.socket.send(bytes.subarray(i, i + MAX_SEND));
  }

  connect(): void {
    this.overlay.hidden = true;
    this.term.reset();
    this.fitNow();
    const url = new URL(this.host.dataset.wsUrl ?? '', window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('cols', String(this.term.cols));
    url.searchParams.set('rows', String(this.term.rows));
    const socket = new WebSocket(url, [TERMINAL_PROTOCOL, CSRF_PROTOCOL_PREFIX + (this.host.dataset.csrf ?? '')]);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.host.dataset.state = 'connecting';
    let notice: ServerNotice | undefined;
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      this.host.dataset.state = 'open';
      this.term.focus();
    });
    socket.addEventListener('message', (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data === 'string') {
        notice = JSON.parse(event.data) as ServerNotice;
        return;
      }
      this.term.write(new Uint8Array(event.data));
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.host.dataset.state = 'closed';
      // A refusal before the upgrade (origin, session, CSRF) reaches a page only as code 1006.
      const refusedBeforeUpgrade = !opened && !notice;
      this.show(refusedBeforeUpgrade ? 'The terminal could not connect: reload the page (your session may have ended).' : describeClose(event.code, event.reason, notice));
    });
  }

  private show(message: string): void {
    this.overlayText.textContent = message;
    this.overlay.hidden = false;
    this.overlay.querySelector('button')?.focus();
  }
}

/** Full screen: the Terminal panel covers the page (den.css `.fullscreen`); xterm.js refits to it. */
function setFullScreen(on: boolean): void {
  const panel = document.getElementById('panel-terminal');
  const button = document.getElementById('terminal-fullscreen');
  if (!panel || !button) return;
  panel.classList.toggle('fullscreen', on);
  button.setAttribute('aria-pressed', String(on));
  button.textContent = on ? 'Exit full screen' : 'Full screen';
}

const host = document.getElementById('terminal');
if (host) {
  document.getElementById('terminal-fullscreen')?.addEventListener('click', (event) => {
    const button = event.currentTarget as HTMLElement;
    setFullScreen(button.getAttribute('aria-pressed') !== 'true');
  });
  let terminal: BrowserTerminal | undefined;
  const openOnce = () => {
    // In sight: xterm.js draws nothing while it is scrolled out of view.
    host.scrollIntoView({ block: 'nearest' });
    if (terminal) return;
    terminal = new BrowserTerminal(host);
    terminal.connect();
  };
  document.addEventListener('den:tab', (event) => {
    if ((event as CustomEvent<{ tab?: string }>).detail?.tab === 'terminal') openOnce();
  });
  // Opened directly (the tab already shown), no tab event comes.
  if (!host.closest('[hidden]')) openOnce();
}
