/**
 * The nonce the api put into this page's `csp-nonce` meta and its Content-Security-Policy
 * (api/src/dashboard/serve.ts): the design system's <style> elements carry it, so styles stay
 * limited to the origin's files and to elements this page load wrote itself.
 */
export function styleNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? "";
}
