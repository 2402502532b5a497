// The workspace page's "Dev container" card (issue 34 part 2): what the repository's
// devcontainer.json changed and what it did not (the Devcontainer condition's words), how its
// commands went (Lifecycle), and the VS Code extensions it recommends, each a link that opens the
// extension in VS Code (`vscode:extension/<id>`), beside a link opening the workspace folder.
import { html, type Html } from '../html.js';
import { vscodeLink } from './connect.js';
import { phaseOf, type WorkspaceView } from './format.js';

interface SummaryView {
  file?: unknown;
  problem?: unknown;
  extensions?: unknown;
}

function summaryOf(ws: WorkspaceView): SummaryView | undefined {
  const summary = (ws.status as { devcontainer?: unknown } | undefined)?.devcontainer;
  return typeof summary === 'object' && summary !== null && typeof (summary as SummaryView).file === 'string' ? (summary as SummaryView) : undefined;
}

const EXTENSION_ID = /^[A-Za-z0-9][A-Za-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9.-]*$/;

/** The card, or nothing for a workspace whose clone has no devcontainer.json; `folder` is where sessions start (shell/target.ts sessionSettings). */
export function devcontainerCard(ws: WorkspaceView, folder: string, gatewayPort: number): Html | '' {
  const summary = summaryOf(ws);
  if (!summary) return '';
  const condition = (type: string) => ws.status?.conditions?.find((c) => c.type === type);
  const said = condition('Devcontainer');
  const lifecycle = condition('Lifecycle');
  const extensions = Array.isArray(summary.extensions) ? summary.extensions.filter((e): e is string => typeof e === 'string' && EXTENSION_ID.test(e)) : [];
  const endpoint = ws.status?.endpoint;
  return html`<section class="card" id="devcontainer-card" aria-labelledby="devcontainer-title"><h2 id="devcontainer-title">Dev container</h2>
<p class="muted">From <code>~/${String(summary.file)}</code>.</p>
${said && html`<p id="devcontainer-said">${(said.message ?? '').replace(`From ~/${String(summary.file)}: `, '')}</p>`}
${lifecycle && html`<p id="lifecycle-said" class="${lifecycle.reason === 'CommandFailed' ? 'error' : 'muted'}">${lifecycle.message ?? ''}</p>`}
${extensions.length > 0 && html`<h3>VS Code extensions the repository recommends</h3>
<ul id="devcontainer-extensions">${extensions.map((id) => html`<li><a href="vscode:extension/${id}">${id}</a></li>`)}</ul>
<p class="muted">Each link opens the extension in VS Code; install it there once you are connected (Remote-SSH installs extensions on the workspace side).</p>`}
${phaseOf(ws) === 'Running' && endpoint && html`<p><a id="devcontainer-open" href="${vscodeLink(endpoint, folder, gatewayPort)}">Open ${folder} in VS Code (Remote-SSH)</a></p>`}
</section>`;
}
