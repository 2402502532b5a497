// How to reach a workspace from one's own machine: the ssh command, the VS Code Remote-SSH link
// and a ~/.ssh/config block, for the dashboard, the workspace page and a shared workspace's cards.
import { html, type Html } from '../html.js';
import { phaseOf, type WorkspaceView } from './format.js';

/** `vscode://vscode-remote/ssh-remote+<name>@<host>[:port]/<homePath>`: VS Code's Remote-SSH opens the home folder. */
export function vscodeLink(endpoint: string, homePath: string, port = 22): string {
  const authority = encodeURIComponent(endpoint).replace(/%40/g, '@') + (port === 22 ? '' : `:${port}`);
  return `vscode://vscode-remote/ssh-remote+${authority}${homePath.startsWith('/') ? '' : '/'}${homePath}`;
}

/** `ssh [-p port] <name>@<host>`: the port only when it is not SSH's own. */
function sshCommand(endpoint: string, port = 22): string {
  return port === 22 ? `ssh ${endpoint}` : `ssh -p ${port} ${endpoint}`;
}

/** A ~/.ssh/config block for the workspace (`ssh <name>.den` afterwards), as `den config-ssh` names hosts. */
function sshConfigBlock(endpoint: string, port = 22): string {
  const at = endpoint.lastIndexOf('@');
  const user = endpoint.slice(0, at);
  const host = endpoint.slice(at + 1);
  return [`Host ${user}.den`, `  HostName ${host}`, `  Port ${port}`, `  User ${user}`, '  IdentityFile ~/.ssh/id_ed25519', '  IdentitiesOnly yes'].join('\n');
}

/** The ssh command and VS Code link while they can work (Running); otherwise why not and when they will. */
export function connectBlock(ws: WorkspaceView, homePath: string, port = 22, withConfig = false): Html {
  const endpoint = ws.status?.endpoint;
  const phase = phaseOf(ws);
  if (phase === 'Failed') return html`<p class="muted connect-state">SSH and VS Code cannot connect while this workspace cannot start.</p>`;
  if (phase === 'Suspended') return html`<p class="muted connect-state">Stopped: start it to connect over SSH or VS Code.</p>`;
  if (phase !== 'Running' || !endpoint) return html`<p class="muted connect-state">The ssh command and VS Code link appear here when the workspace is Running.</p>`;
  const command = sshCommand(endpoint, port);
  const config = sshConfigBlock(endpoint, port);
  return html`<div class="copy"><code>${command}</code><button type="button" class="secondary" data-copy="${command}" aria-label="Copy the ssh command">Copy</button></div>
<p><a href="${vscodeLink(endpoint, homePath, port)}">Open in VS Code (Remote-SSH)</a></p>
${withConfig && html`<details id="ssh-config"><summary>A <code>~/.ssh/config</code> block (then <code>ssh ${endpoint.slice(0, endpoint.lastIndexOf('@'))}.den</code>, scp, git, VS Code)</summary>
<pre tabindex="0" role="region" aria-label="ssh config block">${config}</pre>
<p><button type="button" class="secondary" data-copy="${config}" aria-label="Copy the ssh config block">Copy</button> <span class="muted">IdentityFile names your private key; change it if yours is elsewhere.</span></p></details>`}`;
}
