// Opens a URL in the person's browser: $BROWSER if set, else the desktop's opener. The URL
// is always printed too, for a terminal on another machine or a browser that did not open.
import { spawn } from 'node:child_process';

export function openBrowser(url: string, env: Record<string, string | undefined>): void {
  const command = env.BROWSER || (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const child = spawn(command, [url], { stdio: 'ignore', detached: true, env: env as NodeJS.ProcessEnv });
  // No opener on this machine is no failure: the address is on the terminal to open by hand.
  child.on('error', () => undefined);
  child.unref();
}
