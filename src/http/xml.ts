/**
 * XML representation of a JSON response: element names are the JSON property names, a list is an
 * element named after its property whose children take the item name declared in the OpenAPI `xml`
 * objects (`product`, `attribute`, `image`), and null values are omitted. Written by hand rather than
 * through a builder because the mapping is this small and must stay exactly as documented.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

// Characters XML 1.0 cannot carry even as references; they become U+FFFD so the document stays well formed.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function text(value: string): string {
  return value.replace(NOT_XML, '\ufffd').replace(/[&<>"]/g, (c) => ESCAPES[c]!);
}

function element(name: string, value: unknown, itemNames: Readonly<Record<string, string>>): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    const item = itemNames[name] ?? 'item';
    return `<${name}>${value.map((v) => element(item, v, itemNames)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    let inner = '';
    for (const [key, v] of Object.entries(value)) inner += element(key, v, itemNames);
    return `<${name}>${inner}</${name}>`;
  }
  // What is left of a JSON body here is a string, number or boolean.
  const scalar = value as string | number | boolean;
  return `<${name}>${text(String(scalar))}</${name}>`;
}

export function toXml(root: string, value: unknown, itemNames: Readonly<Record<string, string>>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value, itemNames)}`;
}
