// A data table that reads at both widths: columns at desktop width, and on a phone each row
// stacked as "Label: value" lines (den.css `table.stack`), each cell carrying its column's
// label in `data-label` for that layout.
import { html, type Html, type Interpolation } from '../html.js';

export interface Column {
  label: string;
  /** Shown in the header instead of the label (a sort link); the label stays the cells' caption. */
  header?: Html;
  /** A column without a visible header (actions): the label is for screen readers only. */
  hiddenLabel?: boolean;
  /** The cells of this column name their row (`<th scope="row">`). */
  rowHeader?: boolean;
}

export interface Row {
  cells: Interpolation[];
  /** Attributes of the `<tr>` (data-workspace="…"), already rendered. */
  attrs?: Html;
}

export function dataTable(id: string, columns: Column[], rows: Row[], caption?: Html): Html {
  const head = columns.map((c) => html`<th scope="col">${c.hiddenLabel ? html`<span class="visually-hidden">${c.label}</span>` : c.header ?? c.label}</th>`);
  const body = rows.map(
    (r) => html`<tr${r.attrs ?? ''}>${r.cells.map((cell, i) => {
      const column = columns[i]!;
      const label = column.hiddenLabel ? '' : html` data-label="${column.label}"`;
      return column.rowHeader ? html`<th scope="row"${label}>${cell}</th>` : html`<td${label}>${cell}</td>`;
    })}</tr>`,
  );
  return html`<table class="stack"${id ? html` id="${id}"` : ''}>${caption && html`<caption>${caption}</caption>`}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}
