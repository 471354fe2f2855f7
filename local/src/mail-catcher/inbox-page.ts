/**
 * The inbox a person opens during `make run` to read the account mails (verification, reset,
 * invitation links): one HTML page, newest first, links clickable; GET /messages gives the same
 * as JSON for scripts.
 */
import { createServer, type Server } from "node:http";
import type { SmtpCatcher } from "./smtp-catcher.js";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const linkify = (text: string) => escape(text).replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1">$1</a>');

function page(catcher: SmtpCatcher): string {
  const items = catcher
    .messages()
    .map(
      (m) =>
        `<article><h2>${escape(m.subject || "(no subject)")}</h2><p class="meta">to ${escape(m.to.join(", "))} · ${m.receivedAt.toISOString()}</p><pre>${linkify(m.text)}</pre></article>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Countersign inbox</title><meta http-equiv="refresh" content="5">
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:1rem auto;padding:0 1rem}article{border-bottom:1px solid #ddd;padding:.5rem 0}.meta{color:#666}pre{white-space:pre-wrap}</style></head>
<body><h1>Countersign inbox</h1><p>Every e-mail the local Cloud API sent (kept in memory, newest first; this page reloads itself).</p>${items || "<p>No e-mail yet.</p>"}</body></html>`;
}

export async function startInboxPage(
  catcher: SmtpCatcher,
  host: string,
  port: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") return res.writeHead(405).end();
    if (path === "/messages") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      return res.end(JSON.stringify({ items: catcher.messages().map(({ raw: _raw, ...m }) => m) }));
    }
    if (path !== "/") return res.writeHead(404).end();
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
    res.end(page(catcher));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address();
  return {
    url: `http://${host}:${typeof addr === "object" && addr ? addr.port : port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
