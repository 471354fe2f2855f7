import { describe, expect, it } from "vitest";
import { digestOf } from "../canonical/index.js";
import { issueBundle } from "../evidence/bundle.js";
import { followingStep, objectBody, signObject } from "../evidence/object.js";
import { verifyBundle } from "../evidence/verify/verify-bundle.js";
import {
  at,
  buildScenario,
  scenarioArguments,
  scenarioIdentity,
  scenarioSigners,
} from "../evidence/scenario.test-support.js";
import type { BodyOf, SignedObject, StepBody } from "../evidence/signed-object.js";
import { attachAttestation, attestResult, checkAttestation, withoutAttestation } from "./attestation.js";
import { checkUpstreamEvidence, type EvidenceExpectation } from "./check-evidence.js";
import { upstreamEvidence } from "./evidence.js";
import { attestationMetaKey } from "./wire.js";

const k = scenarioSigners();
const bundle = buildScenario("approved-execution");
const byType = (t: string) => bundle.objects.find((o) => o.body.type === t)! as SignedObject<StepBody>;
const [task, proposal, approval, execution, delegation] = [
  "TASK",
  "PROPOSAL",
  "APPROVAL",
  "EXECUTION",
  "DELEGATION",
].map(byType) as SignedObject<StepBody>[];
const identities = (["gateway", "principal", "person"] as const).map((r) => scenarioIdentity(r, k[r]));
const evidenceOf = (path: SignedObject[]) => {
  const built = upstreamEvidence({ path, delegations: [delegation!], identities });
  if (!built.ok) throw new Error("evidence too large");
  return built.evidence;
};
const good = evidenceOf([task!, proposal!, approval!, execution!]);
const expect0: EvidenceExpectation = {
  gateways: [k.gateway.kid],
  serverKid: k.mcp_server.kid,
  tool: "refund",
  arguments: scenarioArguments,
  now: new Date(at(70)),
};

describe("the evidence a service-aware upstream checks", () => {
  it("accepts the Gateway's path for these exact arguments, with the approval", () => {
    const c = checkUpstreamEvidence(good, expect0);
    expect(c.ok).toBe(true);
    if (c.ok)
      expect([c.task.id, c.approval?.id, c.execution.id]).toEqual([task!.id, approval!.id, execution!.id]);
  });

  it("survives a JSON round trip, as it travels", () => {
    expect(checkUpstreamEvidence(JSON.parse(JSON.stringify(good)), expect0).ok).toBe(true);
  });

  const refusals: [string, unknown, Partial<EvidenceExpectation>, string][] = [
    ["no evidence", undefined, {}, "EVIDENCE_MISSING"],
    ["not an evidence object", { service_evidence: "0.1", objects: [] }, {}, "EVIDENCE_MALFORMED"],
    [
      "other arguments",
      good,
      { arguments: { ...scenarioArguments, amount: "9999.00" } },
      "ARGUMENTS_MISMATCH",
    ],
    ["another tool", good, { tool: "delete_everything" }, "TOOL_MISMATCH"],
    ["another server", good, { serverKid: k.outsider.kid }, "SERVER_MISMATCH"],
    ["an untrusted Gateway", good, { gateways: [k.outsider.kid] }, "GATEWAY_UNTRUSTED"],
    ["stale evidence", good, { now: new Date(at(3600)) }, "EXPIRED"],
    ["evidence from the future", good, { now: new Date(at(-3600)) }, "EXPIRED"],
  ];
  for (const [name, evidence, x, reason] of refusals) {
    it(`refuses ${name} (${reason})`, () => {
      const c = checkUpstreamEvidence(evidence, { ...expect0, ...x });
      expect(c.ok).toBe(false);
      if (!c.ok) expect(c.reason).toBe(reason);
    });
  }

  it("refuses an altered object (SIGNATURE_INVALID)", () => {
    const altered = structuredClone(good);
    (altered.objects[0]!.body.payload as { arguments_digest: string }).arguments_digest = digestOf({
      other: true,
    });
    const c = checkUpstreamEvidence(altered, { ...expect0, arguments: { other: true } });
    expect(c).toMatchObject({ ok: false, reason: "SIGNATURE_INVALID" });
  });

  it("refuses a path with the approval taken out (CHAIN_INVALID)", () => {
    const c = checkUpstreamEvidence(evidenceOf([task!, proposal!, execution!]), expect0);
    expect(c).toMatchObject({ ok: false, reason: "CHAIN_INVALID" });
  });

  it("refuses an EXECUTION of a call that required approval, signed without one (APPROVAL_MISSING)", () => {
    const skipping = signObject(
      followingStep(proposal!, { ...execution!.body, type: "EXECUTION" } as never) as BodyOf<"EXECUTION">,
      k.gateway,
    ) as SignedObject<StepBody>;
    const c = checkUpstreamEvidence(evidenceOf([task!, proposal!, skipping]), expect0);
    expect(c).toMatchObject({ ok: false, reason: "APPROVAL_MISSING" });
  });

  it("refuses evidence whose signer has no identity document (SIGNATURE_INVALID)", () => {
    const c = checkUpstreamEvidence({ ...good, identities: good.identities.slice(0, 1) }, expect0);
    expect(c).toMatchObject({ ok: false, reason: "SIGNATURE_INVALID" });
  });

  it("bounds the evidence's size, the same way every time", () => {
    const first = upstreamEvidence(
      { path: [task!, proposal!, approval!, execution!], delegations: [delegation!], identities },
      1000,
    );
    const again = upstreamEvidence(
      { path: [task!, proposal!, approval!, execution!], delegations: [delegation!], identities },
      1000,
    );
    expect(first.ok).toBe(false);
    expect(again).toEqual(first);
    expect(first.bytes).toBeGreaterThan(1000);
  });
});

describe("the attestation of a result", () => {
  const result = {
    content: [{ type: "text", text: "refund re_77 created" }],
    isError: false,
    _meta: { trace: "t1" },
  };
  const server = [scenarioIdentity("mcp_server", k.mcp_server)];
  const expected = { serverKid: k.mcp_server.kid, identities: server, executionId: execution!.id };
  const attested = () =>
    attachAttestation(result, attestResult(k.mcp_server, execution!.id, result, new Date(at(62))));

  it("verifies and comes back without itself, digesting to what it states", () => {
    const c = checkAttestation(JSON.parse(JSON.stringify(attested())), expected);
    expect(c.ok).toBe(true);
    expect(c.result).toEqual(result);
    if (c.ok) expect(c.attestation.body.payload.statement).toEqual({ result_digest: digestOf(result) });
  });

  it("is missing when the server sent none", () => {
    expect(checkAttestation(result, expected)).toMatchObject({ ok: false, code: "ATTESTATION_MISSING" });
  });

  it("is invalid over another result", () => {
    const a = attested();
    const changed = { ...a, content: [{ type: "text", text: "refund re_78 created" }] };
    expect(checkAttestation(changed, expected)).toMatchObject({ ok: false, code: "ATTESTATION_INVALID" });
  });

  it("is invalid for another EXECUTION", () => {
    expect(checkAttestation(attested(), { ...expected, executionId: task!.id })).toMatchObject({
      ok: false,
      code: "ATTESTATION_INVALID",
    });
  });

  it("is invalid when signed by another key than the registered one", () => {
    const forged = attachAttestation(
      result,
      attestResult(k.outsider, execution!.id, result, new Date(at(62))),
    );
    expect(checkAttestation(forged, expected)).toMatchObject({ ok: false, code: "ATTESTATION_INVALID" });
  });

  it("is invalid when it is not an ATTESTATION at all", () => {
    const junk = { ...result, _meta: { [attestationMetaKey]: { hello: "world" } } };
    const c = checkAttestation(junk, expected);
    expect(c).toMatchObject({ ok: false, code: "ATTESTATION_INVALID" });
    expect(c.result).toEqual({ content: result.content, isError: false });
  });

  it("drops an emptied _meta so both sides digest the same value", () => {
    const plain = { content: [], isError: false };
    expect(withoutAttestation(attachAttestation(plain, execution!))).toEqual(plain);
  });
});

describe("the verifier and a server the receipt vouches for", () => {
  const server = scenarioIdentity("mcp_server", k.mcp_server);
  const path = bundle.objects.slice(0, 5) as SignedObject<StepBody>[];
  const issue = (supporting: SignedObject[]) =>
    issueBundle({
      issuer: k.gateway,
      issued_at: at(63),
      path,
      supporting: [delegation!, ...supporting],
      identities: [...identities, server],
      trusted_attesters: [k.mcp_server.kid],
    });
  const trust = { trust: { issuers: [k.gateway.kid], principals: [k.principal.kid] } };

  it("warns ATTESTATION_MISSING when the vouched-for server did not attest, and stays valid", () => {
    const v = verifyBundle(issue([]), trust);
    expect(v.valid).toBe(true);
    expect(v.warnings.map((w) => w.code)).toEqual(["ATTESTATION_MISSING"]);
  });

  it("warns when the attestation states another result digest than the RESULT's", () => {
    const other = attestResult(
      k.mcp_server,
      execution!.id,
      { content: [{ type: "text", text: "other" }] },
      new Date(at(62)),
    );
    const v = verifyBundle(issue([other]), trust);
    expect(v.warnings.map((w) => w.code)).toEqual(["ATTESTATION_MISSING"]);
  });

  it("is quiet when the attestation covers the RESULT's digest", () => {
    const result = path[4]! as SignedObject<BodyOf<"RESULT">>;
    const covering = signObject(
      objectBody({
        type: "ATTESTATION",
        actor: k.mcp_server.kid,
        on_behalf_of: null,
        thread: null,
        parent: null,
        delegations: [],
        issued_at: at(62),
        payload: {
          subject: execution!.id,
          claim: "service/tool-result@0.1",
          statement: { result_digest: result.body.payload.result_digest },
        },
      }),
      k.mcp_server,
    );
    const v = verifyBundle(issue([covering]), trust);
    expect(v.valid).toBe(true);
    expect(v.warnings).toEqual([]);
  });
});
