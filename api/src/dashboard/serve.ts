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

// Scripts and styles only from the origin itself; nothing may frame the page (clickjacking of approvals).
const securityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

export interface DashboardFiles {
  /** Answers the request with a file of the build or index.html; false when it is not the dashboard's to answer. */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
}

export function dashboardFiles(dir: string, apiPrefix: string): DashboardFiles {
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
      reply.headers(securityHeaders);
      reply.type(contentTypes[path.extname(chosen)] ?? "application/octet-stream");
      // Built assets carry a content hash in their names; index.html must always be fresh.
      if (chosen.startsWith(path.join(root, "assets") + path.sep))
        reply.header("cache-control", "public, max-age=31536000, immutable");
      await reply.code(200).send(body);
      return true;
    },
  };
}
