import { styleNonce } from "../../theme/style-nonce.js";

/**
 * Scalar's viewer writes its theme (colours, spacing, fonts' variables) into a <style> element it
 * creates with Vue, and its toasts bring their CSS the same way. The dashboard's content security
 * policy admits only the origin's style files and <style> elements carrying this page load's nonce
 * (api/src/dashboard/serve.ts), so without the nonce the viewer renders without its theme.
 *
 * Imported before Scalar's modules, this gives a <style> element that the page's own scripts create
 * the nonce, as Mantine's carry it (main.tsx, getStyleNonce). Markup injected into the page (an
 * HTML string parsed into the document) is not created through createElement and still cannot bring
 * a style.
 */
const nonce = styleNonce();
if (nonce) {
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (
    this: Document,
    tag: string,
    options?: ElementCreationOptions,
  ) {
    const element = create.call(this, tag, options);
    if (tag.toLowerCase() === "style") element.setAttribute("nonce", nonce);
    return element;
  } as typeof Document.prototype.createElement;
}
