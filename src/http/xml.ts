/**
 * XML representation of a JSON response: element names are the JSON property names, a list is an
 * element named after its property whose children take the item name declared in the OpenAPI `xml`
 * objects (`product`, `attribute`, `image`), null values are omitted, and a mapping may write some scalars
 * its own way (prices with 2 decimals). The root and item names are the document's, read by
 * `npm run generate` into generated/openapi/<document>.xml.ts, so no representation repeats them.
 * Written by hand rather than through a builder because the mapping is this small and must stay
 * exactly as documented.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

// Characters XML 1.0 cannot carry even as references; they become U+FFFD so the document stays well formed.
// oxlint-disable-next-line no-control-regex -- control characters are what it matches
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function text(value: string): string {
  return value.replace(NOT_XML, '\ufffd').replace(/[&<>"]/g, (c) => ESCAPES[c]!);
}

export interface XmlMapping {
  /** The root element's name (the schema's `xml.name`). */
  root: string;
  /** Item element name of each list, by the list's property name. */
  items: Readonly<Record<string, string>>;
  /** Text of the scalar properties that are not written with String() (prices), by property name. */
  scalars?: Readonly<Record<string, (value: string | number | boolean) => string>>;
}

function element(name: string, value: unknown, mapping: XmlMapping): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    const item = mapping.items[name] ?? 'item';
    return `<${name}>${value.map((v) => element(item, v, mapping)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    let inner = '';
    for (const [key, v] of Object.entries(value)) inner += element(key, v, mapping);
    return `<${name}>${inner}</${name}>`;
  }
  // What is left of a JSON body here is a string, number or boolean.
  const scalar = value as string | number | boolean;
  const write = mapping.scalars?.[name];
  return `<${name}>${text(write ? write(scalar) : String(scalar))}</${name}>`;
}

export function toXml(value: unknown, mapping: XmlMapping): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(mapping.root, value, mapping)}`;
}
