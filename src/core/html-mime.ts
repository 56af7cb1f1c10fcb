/** The media types read as HTML (links, text, pages): HTML and XHTML. */
const HTML_MIME_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

/** Whether a response's media type (lower case, no parameters) is HTML. */
export function isHtmlMime(mime: string): boolean {
  return HTML_MIME_TYPES.has(mime);
}
