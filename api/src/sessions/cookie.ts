import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_ABSOLUTE_SECONDS } from "./store.js";

/** SPEC 5.5: `svc_session`, HttpOnly, SameSite=Lax, Secure. */
export const SESSION_COOKIE = "svc_session";
/** Marks a browser that signed in before under the account's current password (sign-in limit of SPEC 8.1). */
export const KNOWN_BROWSER_COOKIE = "svc_known";

export function cookieValue(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookie(name: string, value: string, maxAge: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; Secure; SameSite=Lax`;
}

function append(reply: FastifyReply, value: string) {
  const prev = reply.getHeader("set-cookie");
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  reply.header("set-cookie", [...list, value]);
}

export function setSessionCookie(reply: FastifyReply, token: string) {
  append(reply, cookie(SESSION_COOKIE, token, SESSION_ABSOLUTE_SECONDS));
}

export function clearSessionCookie(reply: FastifyReply) {
  append(reply, cookie(SESSION_COOKIE, "", 0));
}

export function setKnownBrowserCookie(reply: FastifyReply, value: string) {
  append(reply, cookie(KNOWN_BROWSER_COOKIE, value, 400 * 24 * 3600));
}
