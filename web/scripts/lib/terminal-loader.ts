// The terminal's script (xterm.js, the largest asset by far) and its stylesheet are fetched
// only when the Terminal tab is first opened: the stylesheet first, so xterm.js measures its
// cells with its own styles applied, then the script, which opens the terminal itself.

let started = false;

export function loadTerminal(host: HTMLElement | null): void {
  if (started || !host?.dataset.script) return;
  started = true;
  const script = () => {
    const el = document.createElement('script');
    el.src = host.dataset.script!;
    document.head.append(el);
  };
  if (!host.dataset.style) return script();
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = host.dataset.style;
  link.addEventListener('load', script, { once: true });
  link.addEventListener('error', script, { once: true });
  document.head.append(link);
}
