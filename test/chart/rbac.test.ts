/**
 * The operator's RBAC with operator.watchNamespace, by impersonation against a real kube-apiserver:
 * the chart's Role and RoleBinding let the operator's ServiceAccount read and write its resources
 * and Secrets in the watched namespace only, and its Lease in the release namespace; nothing
 * cluster-wide.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startControlPlane, type ControlPlane } from "../control-plane/index.js";
import { releaseNamespace as ns, render } from "./helm.js";

const watched = "payments-team";
const other = "another-team";
let plane: ControlPlane;

beforeAll(async () => {
  plane = await startControlPlane();
  for (const name of [ns, watched, other])
    expect((await plane.kubectl(["create", "namespace", name])).code).toBe(0);
  const objects = await render(["--set", `operator.watchNamespace=${watched}`]);
  const rbac = objects.filter(
    (o) =>
      ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"].includes(o.kind) &&
      o.metadata.name.startsWith("countersign-operator"),
  );
  const applied = await plane.kubectl(["apply", "-f", "-"], {
    input: stringify({ apiVersion: "v1", kind: "List", items: rbac }),
  });
  expect(applied.stderr).toBe("");
}, 180_000);

afterAll(async () => {
  await plane?.stop();
});

describe("the operator's RBAC with watchNamespace, by impersonation", () => {
  const can = async (...args: string[]) =>
    (
      await plane.kubectl(["auth", "can-i", `--as=system:serviceaccount:${ns}:countersign-operator`, ...args])
    ).stdout.trim();

  it("may do its work in the watched namespace", async () => {
    expect(await can("watch", "policies.countersign.dev", "-n", watched)).toBe("yes");
    expect(await can("update", "agents.countersign.dev", "--subresource=status", "-n", watched)).toBe("yes");
    expect(await can("watch", "secrets", "-n", watched)).toBe("yes");
    expect(await can("create", "secrets", "-n", watched)).toBe("yes");
    expect(await can("create", "events", "-n", watched)).toBe("yes");
    expect(await can("update", "leases.coordination.k8s.io", "-n", ns)).toBe("yes");
  });

  it("may not read Secrets or resources of any other namespace, nor cluster-wide", async () => {
    expect(await can("get", "secrets", "-n", other)).toBe("no");
    expect(await can("watch", "secrets", "-A")).toBe("no");
    expect(await can("watch", "policies.countersign.dev", "-A")).toBe("no");
    expect(await can("update", "policies.countersign.dev", "-n", other)).toBe("no");
    expect(await can("get", "secrets", "-n", ns)).toBe("no");
    expect(await can("update", "leases.coordination.k8s.io", "-n", watched)).toBe("no");
  });
});
