import { describe, expect, it } from "vitest";
import { originAllowed, parseAllowedOrigins } from "./origin.js";

describe("the Origin rule of /mcp", () => {
  const allowed = parseAllowedOrigins(" https://agents.example.com, http://10.0.0.5:3000 ,");

  it("takes origins separated by commas and refuses an entry that is not an origin, naming it", () => {
    expect([...allowed]).toEqual(["https://agents.example.com", "http://10.0.0.5:3000"]);
    expect(parseAllowedOrigins(undefined).size).toBe(0);
    for (const bad of [
      "https://agents.example.com/",
      "agents.example.com",
      "ftp://x.example",
      "https://a.example/path",
    ])
      expect(() => parseAllowedOrigins(`https://ok.example,${bad}`)).toThrow(JSON.stringify(bad));
  });

  it("passes no Origin, loopback pages and configured origins; refuses everything else", () => {
    for (const ok of [
      undefined,
      "http://localhost",
      "https://localhost:8443",
      "http://127.0.0.1:5173",
      "http://[::1]:8080",
      "https://agents.example.com",
      "http://10.0.0.5:3000",
    ])
      expect(originAllowed(ok, allowed)).toBe(true);
    for (const no of [
      "null",
      "",
      "http://evil.example.com",
      "https://agents.example.com:444",
      "http://agents.example.com",
      "http://10.0.0.5",
      "http://localhost.evil.example",
      "file://",
      "https://agents.example.com/",
    ])
      expect(originAllowed(no, allowed)).toBe(false);
  });
});
