import { randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The dashboard's static files, served by the api on the dashboard origin so
 * the session cookie, the Origin check and X-Service-CSRF work as for any
 * same-origin page. Any GET that no route answered and that is not under the
 * API prefix gets a file of the build, or index.html: the e-mail links
 * (/verify-email, /password-reset, /invitations/accept, ...) are pages of the
 * single-page application, routed in the browser.
 */
const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/**
 * Scripts only from the origin itself; styles from the origin plus the <style> elements that carry
 * this response's nonce (the design system writes its theme variables into one, and reads the
 * nonce from index.html's `csp-nonce` meta); nothing may frame the page (clickjacking of approvals).
 */
function securityHeaders(styleNonce?: string) {
  const styles = styleNonce ? `'self' 'nonce-${styleNonce}'` : "'self'";
  return {
    "content-security-policy": `default-src 'self'; script-src 'self'; style-src ${styles}; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
  };
}

/** The placeholder in the built index.html that each response replaces with a fresh nonce. */
const NONCE_PLACEHOLDER = "__CSP_NONCE__";
/**
 * The placeholder of the `countersign-gateway-url` meta: the Gateway's public base URL
 * (COUNTERSIGN_GATEWAY_URL), which the page shows with the snippets that connect an agent; empty
 * when the installation did not say, so the page never shows a guessed address.
 */
const GATEWAY_URL_PLACEHOLDER = "__GATEWAY_URL__";

/** Text safe inside a double-quoted HTML attribute. */
const attributeText = (v: string) =>
  v
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/'/g, "&#39;");

export interface DashboardFiles {
  /** Answers the request with a file of the build or index.html; false when it is not the dashboard's to answer. */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
}

export function dashboardFiles(
  dir: string,
  apiPrefix: string,
  opts: { gatewayUrl?: string } = {},
): DashboardFiles {
  const gatewayUrl = attributeText(opts.gatewayUrl ?? "");
  const root = path.resolve(dir);
  const indexFile = path.join(root, "index.html");
  async function fileAt(urlPath: string): Promise<string | undefined> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return undefined;
    }
    const file = path.resolve(root, `.${path.posix.normalize(decoded)}`);
    if (!file.startsWith(`${root}${path.sep}`)) return undefined;
    const s = await stat(file).catch(() => undefined);
    return s?.isFile() ? file : undefined;
  }
  return {
    async serve(request, reply) {
      if (request.method !== "GET" && request.method !== "HEAD") return false;
      const urlPath = request.url.split("?")[0]!;
      if (urlPath === apiPrefix || urlPath.startsWith(`${apiPrefix}/`)) return false;
      const file = await fileAt(urlPath);
      // A missing asset is a 404, never index.html (a stale page would otherwise load HTML as a script).
      if (!file && urlPath.startsWith("/assets/")) return false;
      const chosen = file ?? indexFile;
      const body = await readFile(chosen).catch(() => undefined);
      if (!body) return false;
      if (chosen === indexFile) {
        // A nonce is worth something only if it is new for every page load.
        const nonce = randomBytes(18).toString("base64url");
        const page = body.toString("utf8");
        const withNonce = page.includes(NONCE_PLACEHOLDER);
        reply.headers(securityHeaders(withNonce ? nonce : undefined));
        reply.type(contentTypes[".html"]!);
        const filled = (withNonce ? page.replaceAll(NONCE_PLACEHOLDER, nonce) : page).replaceAll(
          GATEWAY_URL_PLACEHOLDER,
          gatewayUrl,
        );
        await reply.code(200).send(filled);
        return true;
      }
      reply.headers(securityHeaders());
      reply.type(contentTypes[path.extname(chosen)] ?? "application/octet-stream");
      // Built assets carry a content hash in their names; index.html must always be fresh.
      if (chosen.startsWith(path.join(root, "assets") + path.sep))
        reply.header("cache-control", "public, max-age=31536000, immutable");
      await reply.code(200).send(body);
      return true;
    },
  };
}
