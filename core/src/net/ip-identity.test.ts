import type { PeerCertificate } from "node:tls";
import { describe, expect, it } from "vitest";
import { checkIpIdentity } from "./ip-identity.js";

const cert = (subjectaltname: string) => ({ subject: {}, subjectaltname }) as unknown as PeerCertificate;

describe("checkIpIdentity", () => {
  it("accepts an address among the certificate's IP names, in any spelling of it", () => {
    expect(
      checkIpIdentity("::1", cert("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1")),
    ).toBeUndefined();
    expect(checkIpIdentity("::1", cert("IP Address:::1"))).toBeUndefined();
    expect(checkIpIdentity("127.0.0.1", cert("IP Address:127.0.0.1"))).toBeUndefined();
  });

  it("refuses an address the certificate does not name, and a DNS name standing for it", () => {
    expect(checkIpIdentity("::1", cert("IP Address:::2, DNS:localhost"))?.message).toMatch(
      /not in the certificate/,
    );
    expect(checkIpIdentity("127.0.0.1", cert("DNS:127.0.0.1"))).toMatchObject({
      code: "ERR_TLS_CERT_ALTNAME_INVALID",
    });
    expect(checkIpIdentity("10.0.0.1", cert(""))).toBeInstanceOf(Error);
  });
});
