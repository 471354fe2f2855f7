import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { agentSpec } from "./agent.js";
import { kinds } from "./kinds.js";
import { policySpec } from "./policy.js";
import { renderCrds } from "./render.js";

const crdsDir = fileURLToPath(new URL("../../../crds/", import.meta.url));

describe("crds/", () => {
  it("holds exactly the CRDs generated from the typed schemas (run `make crds` when this fails)", () => {
    const generated = renderCrds();
    const checkedIn = readdirSync(crdsDir).filter((n) => n.endsWith(".yaml"));
    expect(checkedIn.sort()).toEqual([...generated.keys()].sort());
    for (const [name, text] of generated) {
      expect(readFileSync(crdsDir + name, "utf8"), `crds/${name} is stale`).toBe(text);
    }
  });

  it("is copied exactly into the chart, as is the operator's RBAC (files/, no symlinks; `make crds`)", () => {
    const chartFiles = fileURLToPath(new URL("../../../charts/countersign/files/", import.meta.url));
    expect(readdirSync(chartFiles + "crds").sort()).toEqual(
      readdirSync(crdsDir)
        .filter((n) => n.endsWith(".yaml"))
        .sort(),
    );
    for (const name of readdirSync(crdsDir).filter((n) => n.endsWith(".yaml"))) {
      expect(lstatSync(chartFiles + "crds/" + name).isSymbolicLink()).toBe(false);
      expect(
        readFileSync(chartFiles + "crds/" + name, "utf8"),
        `charts/countersign/files/crds/${name} is stale`,
      ).toBe(readFileSync(crdsDir + name, "utf8"));
    }
    const rbac = fileURLToPath(new URL("../../../config/rbac/operator-clusterrole.yaml", import.meta.url));
    expect(lstatSync(chartFiles + "operator-clusterrole.yaml").isSymbolicLink()).toBe(false);
    expect(readFileSync(chartFiles + "operator-clusterrole.yaml", "utf8")).toBe(readFileSync(rbac, "utf8"));
  });

  it("describes every field, so `kubectl explain` has something to say about each", () => {
    for (const [name, text] of renderCrds()) {
      const undocumented: string[] = [];
      const walk = (schema: Record<string, unknown>, at: string) => {
        for (const [key, child] of Object.entries(
          (schema.properties ?? {}) as Record<string, Record<string, unknown>>,
        )) {
          // metadata is the apiserver's: a CRD may not describe it.
          if (!child.description && `${at}.${key}` !== ".metadata") undocumented.push(`${at}.${key}`);
          walk(child, `${at}.${key}`);
        }
        if (schema.items) walk(schema.items as Record<string, unknown>, `${at}[]`);
      };
      walk(parse(text).spec.versions[0].schema.openAPIV3Schema, "");
      expect(undocumented, `${name}: fields without a description`).toEqual([]);
    }
  });

  it("has one NAME column per kind (kubectl prints its own)", () => {
    for (const [name, text] of renderCrds()) {
      const columns = parse(text).spec.versions[0].additionalPrinterColumns.map((c: { name: string }) =>
        c.name.toUpperCase(),
      );
      expect(columns, name).not.toContain("NAME");
    }
  });

  it("gives every kind the status subresource, the countersign category, short names and Ready/Age columns", () => {
    for (const [, text] of renderCrds()) {
      const crd = parse(text);
      const v = crd.spec.versions[0];
      expect(v.subresources).toEqual({ status: {} });
      expect(crd.spec.names.categories).toEqual(["countersign"]);
      expect(crd.spec.names.shortNames.length).toBeGreaterThan(0);
      const columns = v.additionalPrinterColumns.map((c: { name: string }) => c.name);
      expect(columns).toEqual(expect.arrayContaining(["Ready", "Age", "Message"]));
      expect(v.additionalPrinterColumns.find((c: { name: string }) => c.name === "Message").priority).toBe(1);
    }
  });

  it("shows a Policy's Stage, Active, Shadow, Ready and Age, in that order", () => {
    const policy = kinds.find((k) => k.kind === "Policy")!;
    expect(policy.columns.filter((c) => !c.priority).map((c) => c.name)).toEqual([
      "Stage",
      "Active",
      "Shadow",
      "Ready",
      "Age",
    ]);
  });

  it("uses no construct a structural schema forbids", () => {
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
      if (!node || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      for (const forbidden of ["anyOf", "oneOf", "allOf", "not", "$ref", "const", "nullable"]) {
        expect(o[forbidden], `${path}.${forbidden}`).toBeUndefined();
      }
      if (o.properties)
        expect(o.additionalProperties, `${path} has properties and additionalProperties`).toBeUndefined();
      for (const [k, v] of Object.entries(o)) if (k !== "default" && k !== "enum") walk(v, `${path}.${k}`);
    };
    for (const [name, text] of renderCrds()) walk(parse(text), name);
  });
});

describe("the same schemas in the operator", () => {
  it("fill the defaults the apiserver fills", () => {
    const policy = policySpec.parse({ document: { rules: [], default: "deny" } });
    expect(policy.rollout).toEqual({ stage: "Enforce", acknowledgeFailingExamples: false, observe: [] });
    expect(policy.examples).toEqual([]);
    expect(agentSpec.parse({}).disabled).toBe(false);
  });

  it("refuse what the CRD refuses", () => {
    expect(agentSpec.safeParse({ name: "two\nlines" }).success).toBe(false);
    expect(
      policySpec.safeParse({
        document: {},
        examples: [{ id: "a", action: "x", tool: "t", expectedOutcome: "maybe" }],
      }).success,
    ).toBe(false);
  });
});

describe("free-form members", () => {
  it("keep every member they were given (a tool's input schema, a policy document)", async () => {
    const { toolSpec } = await import("./tool.js");
    const schema = { type: "object", properties: { amount: { type: "string" } }, required: ["amount"] };
    expect(
      toolSpec.parse({ mcpServerRef: { name: "s" }, exposedName: "t", action: "a", inputSchema: schema })
        .inputSchema,
    ).toEqual(schema);
    const document = { default_effect: "deny", rules: [{ id: "r", effect: "allow" }] };
    expect(policySpec.parse({ document, rollout: { stage: "Shadow", candidate: document } })).toMatchObject({
      document,
      rollout: { candidate: document },
    });
  });
});
