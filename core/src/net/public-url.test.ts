import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { judgeAddress, judgeReceiverAddress } from "./address-judgement.js";
import { checkPublicUrl, checkUrlText, type Resolve } from "./public-url.js";
import { AddressNotAllowedError, checkedLookup, connectTarget } from "./connect.js";

// Each row: an address and the reason it is refused, or "public".
const addresses: [string, string][] = [
  // The addresses named by the issue.
  ["169.254.169.254", "link_local_address"],
  ["::ffff:10.0.0.1", "private_address"],
  ["64:ff9b::a00:1", "private_address"],
  ["100.64.0.1", "carrier_grade_nat_address"],
  ["[::1]", "loopback_address"],
  // IPv4 special ranges.
  ["0.0.0.0", "unspecified_address"],
  ["0.1.2.3", "unspecified_address"],
  ["10.255.255.255", "private_address"],
  ["100.127.255.255", "carrier_grade_nat_address"],
  ["100.128.0.1", "public"],
  ["127.0.0.1", "loopback_address"],
  ["127.255.0.9", "loopback_address"],
  ["169.254.0.1", "link_local_address"],
  ["172.16.0.1", "private_address"],
  ["172.31.255.254", "private_address"],
  ["172.32.0.1", "public"],
  ["192.0.0.8", "reserved_address"],
  ["192.0.2.1", "documentation_address"],
  ["192.88.99.1", "reserved_address"],
  ["192.168.1.1", "private_address"],
  ["198.18.0.1", "reserved_address"],
  ["198.19.255.255", "reserved_address"],
  ["198.51.100.7", "documentation_address"],
  ["203.0.113.9", "documentation_address"],
  ["224.0.0.1", "multicast_address"],
  ["239.255.255.250", "multicast_address"],
  ["240.0.0.1", "reserved_address"],
  ["255.255.255.255", "reserved_address"],
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["93.184.216.34", "public"],
  // IPv6 special ranges.
  ["::", "unspecified_address"],
  ["::1", "loopback_address"],
  ["0:0:0:0:0:0:0:1", "loopback_address"],
  ["fe80::1", "link_local_address"],
  ["fe80::1%eth0", "link_local_address"],
  ["fc00::1", "private_address"],
  ["fd12:3456::1", "private_address"],
  ["fec0::1", "private_address"],
  ["ff02::1", "multicast_address"],
  ["2001:db8::1", "documentation_address"],
  ["3fff::1", "documentation_address"],
  ["2001::1", "reserved_address"], // Teredo
  ["2001:10::1", "reserved_address"], // ORCHID
  ["100::1", "reserved_address"],
  ["64:ff9b:1::1", "private_address"],
  ["5f00::1", "reserved_address"],
  ["4000::1", "reserved_address"], // outside global unicast
  ["2606:4700:4700::1111", "public"],
  ["2a00:1450:4001:80b::200e", "public"],
  // IPv6 forms embedding IPv4, judged by the embedded address.
  ["::ffff:127.0.0.1", "loopback_address"],
  ["::ffff:7f00:1", "loopback_address"],
  ["::ffff:169.254.169.254", "link_local_address"],
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:0:10.0.0.1", "private_address"], // IPv4-translated
  ["64:ff9b::169.254.169.254", "link_local_address"],
  ["64:ff9b::808:808", "public"],
  ["2002:a00:1::1", "private_address"], // 6to4 of 10.0.0.1
  ["2002:c000:201::", "documentation_address"], // 6to4 of 192.0.2.1
  ["2002:808:808::1", "public"],
  ["::10.0.0.1", "private_address"], // IPv4-compatible
  ["::a9fe:a9fe", "link_local_address"], // IPv4-compatible 169.254.169.254
  // Not an address at all.
  ["not-an-ip", "reserved_address"],
];

describe("judgeAddress", () => {
  it.each(addresses)("%s is %s", (address, expected) => {
    const judgement = judgeAddress(address);
    expect(judgement.allowed ? "public" : judgement.reason).toBe(expected);
  });

  it("the loopback switch allows loopback only, never private or link-local ranges", () => {
    for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "[::1]"]) {
      expect(judgeReceiverAddress(a, true)).toEqual({ allowed: true });
      expect(judgeReceiverAddress(a, false)).toEqual({ allowed: false, reason: "loopback_address" });
    }
    for (const a of ["10.0.0.1", "192.168.0.1", "169.254.169.254", "fd00::1", "0.0.0.0", "::"]) {
      expect(judgeReceiverAddress(a, true).allowed).toBe(false);
    }
  });
});

describe("checkUrlText", () => {
  const rows: [string, string][] = [
    ["https://example.com/hook", "ok"],
    ["https://example.com:8443/a?b=c", "ok"],
    ["http://example.com/hook", "not_https"],
    ["ftp://example.com/", "not_https"],
    ["example.com/hook", "invalid_url"],
    ["https://user:pw@example.com/", "has_userinfo"],
    ["https://user@example.com/", "has_userinfo"],
    ["https://@example.com/", "has_userinfo"],
    ["https://example.com/a#frag", "has_fragment"],
    ["https://example.com/a#", "has_fragment"],
    [`https://example.com/${"a".repeat(2048 - 20)}`, "ok"],
    [`https://example.com/${"a".repeat(2048 - 19)}`, "too_long"],
  ];
  it.each(rows)("%s: %s", (text, expected) => {
    const check = checkUrlText(text);
    expect(check.allowed ? "ok" : check.reason).toBe(expected);
  });

  it("counts 2048 characters exactly", () => {
    expect(`https://example.com/${"a".repeat(2048 - 20)}`.length).toBe(2048);
  });
});

describe("checkPublicUrl", () => {
  const fixed =
    (answers: Record<string, string[]>): Resolve =>
    async (host) => {
      const found = answers[host];
      if (!found) throw new Error("ENOTFOUND");
      return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };

  it("refuses a name when any one of its addresses is not public", async () => {
    const resolve = fixed({
      "mixed.test": ["93.184.216.34", "10.1.2.3"],
      "ok.test": ["93.184.216.34", "2606:4700::1"],
    });
    await expect(checkPublicUrl("https://mixed.test/", { allowLoopback: false, resolve })).resolves.toEqual({
      allowed: false,
      reason: "private_address",
      address: "10.1.2.3",
    });
    const ok = await checkPublicUrl("https://ok.test:9443/x", { allowLoopback: false, resolve });
    expect(ok).toMatchObject({ allowed: true, hostname: "ok.test", port: 9443 });
    expect(ok.allowed && ok.addresses.map((a) => a.address)).toEqual(["93.184.216.34", "2606:4700::1"]);
  });

  it("refuses a host that does not resolve", async () => {
    await expect(
      checkPublicUrl("https://nowhere.test/", { allowLoopback: false, resolve: fixed({}) }),
    ).resolves.toEqual({
      allowed: false,
      reason: "unresolvable",
    });
    await expect(
      checkPublicUrl("https://empty.test/", { allowLoopback: false, resolve: fixed({ "empty.test": [] }) }),
    ).resolves.toEqual({
      allowed: false,
      reason: "unresolvable",
    });
  });

  it("judges IP literals without resolving, brackets and embedded IPv4 included", async () => {
    const resolve: Resolve = () => Promise.reject(new Error("must not resolve a literal"));
    for (const [url, reason] of [
      ["https://169.254.169.254/latest/meta-data", "link_local_address"],
      ["https://[::ffff:10.0.0.1]/", "private_address"],
      ["https://[64:ff9b::a00:1]/", "private_address"],
      ["https://100.64.0.1/", "carrier_grade_nat_address"],
      ["https://[::1]:8443/", "loopback_address"],
      ["https://0x7f.1/", "loopback_address"], // WHATWG URL turns this into 127.0.0.1
    ] as const) {
      const check = await checkPublicUrl(url, { allowLoopback: false, resolve });
      expect(check.allowed ? "allowed" : check.reason, url).toBe(reason);
    }
    const loop = await checkPublicUrl("https://[::1]:8443/", { allowLoopback: true, resolve });
    expect(loop).toMatchObject({ allowed: true, hostname: "::1", port: 8443 });
  });

  it("resolves real names through the system resolver", async () => {
    const check = await checkPublicUrl("https://localhost/", { allowLoopback: false });
    expect(check).toMatchObject({ allowed: false, reason: "loopback_address" });
  });
});

describe("connect-time checks", () => {
  it("connectTarget checks again at every call, so a name that turns private is refused", async () => {
    let answer = "93.184.216.34";
    const resolve: Resolve = async () => [{ address: answer, family: 4 }];
    const first = await connectTarget("https://rebind.test/hook", { allowLoopback: false, resolve });
    expect(first).toMatchObject({ address: "93.184.216.34", servername: "rebind.test", port: 443 });
    answer = "169.254.169.254";
    const refusal = await connectTarget("https://rebind.test/hook", { allowLoopback: false, resolve }).catch(
      (e: unknown) => e,
    );
    expect(refusal).toBeInstanceOf(AddressNotAllowedError);
    expect(refusal).toMatchObject({ reason: "link_local_address", address: "169.254.169.254" });
  });

  it("checkedLookup lets a socket reach only checked addresses", async () => {
    const server = createServer((s) => s.end("hello"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const { connect } = await import("node:net");
    const reach = (resolve: Resolve, allowLoopback: boolean) =>
      new Promise<string>((done) => {
        const socket = connect({
          host: "receiver.test",
          port,
          lookup: checkedLookup({ allowLoopback, resolve }) as never,
        });
        let text = "";
        socket.on("data", (d) => (text += d));
        socket.on("end", () => done(text));
        socket.on("error", (e) => done(`refused: ${(e as AddressNotAllowedError).reason}`));
      });
    try {
      const toLoopback: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
      const toMixed: Resolve = async () => [
        { address: "127.0.0.1", family: 4 },
        { address: "10.0.0.1", family: 4 },
      ];
      expect(await reach(toLoopback, true)).toBe("hello");
      expect(await reach(toLoopback, false)).toBe("refused: loopback_address");
      expect(await reach(toMixed, true)).toBe("refused: private_address");
    } finally {
      server.close();
    }
  });
});
