// The catalog page of the administration: WorkspaceImages and ImageRegistries.
import { html, type Html } from '../html.js';
import { csrfField, type AssetUrls, type Viewer } from './layout.js';
import { dataTable } from './table.js';
import { frame, refusal, kept, input, checkbox, select, type AdminOutcome } from './admin-frame.js';

export interface ImageLine {
  name: string;
  displayName: string;
  image: string;
  description: string;
  icon: string;
  tags: string[];
  deprecated: boolean;
  registry: string;
}

export interface RegistryLine {
  name: string;
  region: string;
  registryId: string;
  roleArn: string;
  intervalSeconds: string;
  include: string[];
  exclude: string[];
  tagMode: string;
  tagPatterns: string[];
  tagLimit: string;
  prune: boolean;
  pullSecret: string;
  ready: string;
  lastSync: string;
  images: string;
}

function imageFields(form: string, outcome: AdminOutcome, img?: ImageLine): Html {
  return html`${input(form, 'image', 'Container image', outcome, { value: img?.image, required: !img })}
  ${input(form, 'display_name', 'Title', outcome, { value: img?.displayName })}
  ${input(form, 'description', 'Description', outcome, { value: img?.description })}
  ${input(form, 'icon', 'Icon URL', outcome, { value: img?.icon, hint: 'https:// or data:image/…' })}
  ${input(form, 'tags', 'Tags', outcome, { value: img?.tags.join(', '), hint: 'Comma-separated.' })}`;
}

function registryFields(form: string, outcome: AdminOutcome, r?: RegistryLine): Html {
  return html`${input(form, 'region', 'Region', outcome, { value: r?.region, required: !r })}
  ${input(form, 'registry_id', 'Account id', outcome, { value: r?.registryId, hint: 'Empty: the credentials\u2019 own account.' })}
  ${input(form, 'role_arn', 'Role to assume', outcome, { value: r?.roleArn })}
  ${input(form, 'interval_seconds', 'Sync every (seconds)', outcome, { value: r?.intervalSeconds, hint: 'At least 60; default 900.' })}
  ${input(form, 'include', 'Include (RE2, comma-separated)', outcome, { value: r?.include.join(', ') })}
  ${input(form, 'exclude', 'Exclude (RE2, comma-separated)', outcome, { value: r?.exclude.join(', ') })}
  ${select(form, 'tag_mode', 'Tags', ['latest', 'pattern'], kept(outcome, form, 'tag_mode', r?.tagMode || 'latest'))}
  ${input(form, 'tag_patterns', 'Tag patterns (RE2, comma-separated)', outcome, { value: r?.tagPatterns.join(', ') })}
  ${input(form, 'tag_limit', 'Newest tags per repository', outcome, { value: r?.tagLimit })}
  ${input(form, 'image_pull_secret', 'Pull Secret', outcome, { value: r?.pullSecret })}
  ${checkbox(form, 'prune', 'Delete entries whose image is gone', r?.prune ?? false)}`;
}

export function adminCatalogPage(assets: AssetUrls, viewer: Viewer, v: { images: ImageLine[]; registries: RegistryLine[] }, outcome: AdminOutcome): string {
  const csrf = viewer.csrf;
  const images = v.images.map((img) => ({
    attrs: html` data-image="${img.name}"`,
    cells: [
      html`${img.displayName}<br><span class="muted">${img.name}</span>`,
      html`<code>${img.image}</code>`,
      html`${img.deprecated ? 'deprecated' : 'offered'}${img.registry && html`<br><span class="muted">from ${img.registry}</span>`}`,
      html`<form class="inline" method="post" action="/admin/catalog/images/${img.name}/deprecate">${csrfField(csrf)}<input type="hidden" name="deprecated" value="${img.deprecated ? '0' : '1'}"><button type="submit" class="secondary" aria-label="${img.deprecated ? 'Offer' : 'Deprecate'} ${img.name}">${img.deprecated ? 'Offer again' : 'Deprecate'}</button></form>
<details${outcome.error?.form === `image-${img.name}` ? html` open` : ''}><summary>Edit</summary>${refusal(outcome, `image-${img.name}`)}
<form method="post" action="/admin/catalog/images/${img.name}">${csrfField(csrf)}${imageFields(`image-${img.name}`, outcome, img)}<button type="submit">Save</button></form></details>`,
    ],
  }));
  const registries = v.registries.map((r) => ({
    attrs: html` data-registry="${r.name}"`,
    cells: [
      r.name,
      r.region,
      r.ready,
      r.lastSync || 'never',
      r.images || '0',
      html`<form class="inline" method="post" action="/admin/catalog/registries/${r.name}/force-sync">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Sync ${r.name} now">Sync now</button></form>
<details${outcome.error?.form === `registry-${r.name}` ? html` open` : ''}><summary>Edit</summary>${refusal(outcome, `registry-${r.name}`)}
<form method="post" action="/admin/catalog/registries/${r.name}">${csrfField(csrf)}${registryFields(`registry-${r.name}`, outcome, r)}<button type="submit">Save</button></form></details>`,
    ],
  }));
  const body = html`<section class="card" aria-labelledby="images-title"><h2 id="images-title">Catalog entries</h2>
${refusal(outcome, 'deprecate')}
${dataTable('images', [{ label: 'Entry' }, { label: 'Image' }, { label: 'State' }, { label: 'Actions', hiddenLabel: true }], images)}
<details${outcome.error?.form === 'image' ? html` open` : ''}><summary>Add an entry</summary>${refusal(outcome, 'image')}
<form method="post" action="/admin/catalog/images">${csrfField(csrf)}${input('image', 'name', 'Name', outcome, { required: true })}${imageFields('image', outcome)}<button type="submit">Create entry</button></form></details>
</section>
<section class="card" aria-labelledby="registries-title"><h2 id="registries-title">Image registries</h2>
${refusal(outcome, 'sync')}
${dataTable('registries', [...['Name', 'Region', 'Ready', 'Last sync', 'Entries'].map((label) => ({ label })), { label: 'Actions', hiddenLabel: true }], registries)}
<details${outcome.error?.form === 'registry' ? html` open` : ''}><summary>Add a registry</summary>${refusal(outcome, 'registry')}
<form method="post" action="/admin/catalog/registries">${csrfField(csrf)}${input('registry', 'name', 'Name', outcome, { required: true })}${registryFields('registry', outcome)}<button type="submit">Create registry</button></form></details>
</section>`;
  return frame(assets, viewer, 'catalog', 'Catalog administration', outcome, body);
}
