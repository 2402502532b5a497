// xterm.js writes its theme and cell sizes as <style> elements and some colours (true colour,
// contrast) as style attributes; the pages' CSP (`style-src 'self'`, no 'unsafe-inline') refuses
// both, which leaves the terminal unstyled. CSSOM is outside the CSP's reach and only the page's
// own scripts can use it, so the same rules are applied through it: given to xterm.js as its
// `documentOverride`, this document hands out, for a <style>, an inert element whose text
// becomes a constructed stylesheet adopted by the document, and elements whose style attribute,
// when a script sets it, is set as their `style.cssText`. Markup in the page gains nothing.
// xterm.js 6 creates its scrollbar's <style> on the page's own document whatever the override
// (`stylesThroughCssom` covers that while the terminal opens).

const createOnDocument = Document.prototype.createElement;

function setStyleThroughCssom(this: Element, name: string, value: string): void {
  if (name.toLowerCase() === 'style' && this instanceof HTMLElement) this.style.cssText = value;
  else Element.prototype.setAttribute.call(this, name, value);
}

/** An element standing in for a <style>: its textContent is the rules of an adopted stylesheet, removed with it. */
function adoptedStyle(doc: Document): HTMLElement {
  const sheet = new CSSStyleSheet();
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  const holder = createOnDocument.call(doc, 'den-style');
  holder.hidden = true;
  let text = '';
  Object.defineProperty(holder, 'textContent', {
    get: () => text,
    set: (value: string | null) => {
      text = value ?? '';
      sheet.replaceSync(text);
    },
  });
  holder.remove = () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
    Element.prototype.remove.call(holder);
  };
  return holder;
}

function cssomCreateElement(doc: Document) {
  return (tag: string, options?: ElementCreationOptions): HTMLElement => {
    if (tag.toLowerCase() === 'style') return adoptedStyle(doc);
    const element = createOnDocument.call(doc, tag, options);
    element.setAttribute = setStyleThroughCssom;
    return element;
  };
}

/** Runs `open` with `doc` creating its elements as `cssomDocument` does, then as before. */
export function stylesThroughCssom<T>(doc: Document, open: () => T): T {
  doc.createElement = cssomCreateElement(doc) as Document['createElement'];
  try {
    return open();
  } finally {
    delete (doc as Partial<Document>).createElement;
  }
}

/** `doc`, except that elements it creates get their styles through CSSOM (see above). */
export function cssomDocument(doc: Document): Document {
  const createElement = cssomCreateElement(doc);
  return new Proxy(doc, {
    get(target, prop) {
      if (prop === 'createElement') return createElement;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
