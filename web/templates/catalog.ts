// The catalog: entries the person may use, filtered by text and tag (a GET form, so it works
// without scripts and the filter is in the address), deprecated ones only on request.
import { html } from '../html.js';
import { page, type AssetUrls, type Viewer } from './layout.js';

export interface CatalogEntry {
  name: string;
  displayName: string;
  description: string;
  image: string;
  tags: string[];
  maintainer: string;
  hasIcon: boolean;
  deprecated: boolean;
  /** Set while the entry is still usable but will be deprecated then (ISO date). */
  deprecateAt?: string;
}

export interface CatalogFilter {
  q: string;
  tag: string;
  deprecated: boolean;
}

export interface CatalogView {
  entries: CatalogEntry[];
  /** Every tag of the entries the person may use, for the tag picker. */
  tags: string[];
  filter: CatalogFilter;
  /** How many usable entries the filter hides. */
  hidden: number;
}

function entryCard(e: CatalogEntry) {
  return html`<article class="card entry" data-entry="${e.name}" aria-labelledby="img-${e.name}">
  <div class="row">${e.hasIcon ? html`<img class="icon" src="/workspace-images/${e.name}/icon" alt="">` : ''}<h2 id="img-${e.name}">${e.displayName}</h2>
    ${e.deprecated && html`<span class="badge Failed">Deprecated</span>`}</div>
  ${e.deprecateAt && html`<p class="warning" role="note">Deprecated from ${e.deprecateAt.slice(0, 10)}: choose another image for new work.</p>`}
  ${e.description && html`<p>${e.description}</p>`}
  <dl class="facts"><dt>Image</dt><dd><code>${e.image}</code></dd>${e.maintainer && html`<dt>Maintainer</dt><dd>${e.maintainer}</dd>`}</dl>
  ${e.tags.length > 0 && html`<div class="tags">${e.tags.map((t) => html`<span class="tag">${t}</span>`)}</div>`}
  <p><a class="button" href="/new?image=${encodeURIComponent(e.name)}">Create a workspace from ${e.displayName}</a></p>
</article>`;
}

export function catalogPage(assets: AssetUrls, viewer: Viewer, view: CatalogView): string {
  const { filter } = view;
  const body = html`<h1>Catalog</h1>
<form method="get" action="/catalog" class="card" role="search" aria-label="Filter the catalog">
  <div class="grid2">
    <div class="field"><label for="q">Search</label><input type="search" id="q" name="q" value="${filter.q}" placeholder="name, description, image"></div>
    <div class="field"><label for="tag">Tag</label><select id="tag" name="tag"><option value="">Any tag</option>${view.tags.map(
      (t) => html`<option value="${t}"${t === filter.tag ? html` selected` : ''}>${t}</option>`,
    )}</select></div>
  </div>
  <label class="check"><input type="checkbox" name="deprecated" value="1"${filter.deprecated ? html` checked` : ''} data-autosubmit> Show deprecated entries</label>
  <p><button type="submit">Filter</button> <a href="/catalog">Clear</a></p>
</form>
<p class="muted" id="catalog-count">${view.entries.length} ${view.entries.length === 1 ? 'entry' : 'entries'}${view.hidden > 0 ? `, ${view.hidden} hidden by the filter` : ''}</p>
${view.entries.length === 0 ? html`<p class="card empty">No entry matches. ${filter.deprecated ? '' : 'Deprecated entries are hidden; '}<a href="/catalog">clear the filter</a>.</p>` : html`<div class="cards">${view.entries.map(entryCard)}</div>`}`;
  return page({ title: 'Catalog', assets, viewer, active: 'catalog', body });
}
