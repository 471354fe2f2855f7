/**
 * Security invariants of every container the chart can render (default values and every option
 * on): never root, no privilege escalation, every capability dropped, seccomp RuntimeDefault, a
 * read-only root filesystem, requests and limits, and liveness and readiness probes on every
 * long-running container (Jobs run to completion and have none).
 */
import { describe, expect, it } from "vitest";
import { allOptionsValues, render, type K8sObject } from "./helm.js";
import type { JsonBody } from "../fixtures/json.js";

const workloadKinds = ["Deployment", "StatefulSet", "Job", "DaemonSet", "CronJob"];

interface Checked {
  where: string;
  kind: string;
  pod: JsonBody;
  container: JsonBody;
}

function containersOf(objects: K8sObject[]): Checked[] {
  const out: Checked[] = [];
  for (const o of objects.filter((x) => workloadKinds.includes(x.kind))) {
    const pod = o.kind === "CronJob" ? o.spec.jobTemplate.spec.template.spec : o.spec.template.spec;
    for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
      out.push({
        where: `${o.kind}/${o.metadata.name} container ${container.name}`,
        kind: o.kind,
        pod,
        container,
      });
    }
  }
  return out;
}

const renders = {
  "default values": await render(),
  "every option on": await render(["-f", allOptionsValues]),
};

describe.each(Object.entries(renders))("every container (%s)", (_name, objects) => {
  const containers = containersOf(objects);

  it("finds the containers of every workload", () => {
    expect(containers.length).toBeGreaterThanOrEqual(5);
  });

  it("runs as a non-root user, never privileged, without privilege escalation or host namespaces", () => {
    for (const { where, pod, container } of containers) {
      const sc = container.securityContext ?? {};
      expect(sc.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where).toBe(true);
      const uid = sc.runAsUser ?? pod.securityContext?.runAsUser;
      if (uid !== undefined) expect(uid, where).toBeGreaterThan(0);
      expect(sc.allowPrivilegeEscalation, where).toBe(false);
      expect(sc.privileged ?? false, where).toBe(false);
      expect(pod.hostNetwork ?? false, where).toBe(false);
      expect(pod.hostPID ?? false, where).toBe(false);
      expect(pod.hostIPC ?? false, where).toBe(false);
    }
  });

  it("drops every capability, adds none, uses seccomp RuntimeDefault and a read-only root filesystem", () => {
    for (const { where, pod, container } of containers) {
      const sc = container.securityContext ?? {};
      expect(sc.capabilities?.drop, where).toEqual(["ALL"]);
      expect(sc.capabilities?.add ?? [], where).toEqual([]);
      expect((sc.seccompProfile ?? pod.securityContext?.seccompProfile)?.type, where).toBe("RuntimeDefault");
      expect(sc.readOnlyRootFilesystem, where).toBe(true);
    }
  });

  it("sets cpu and memory requests and a memory limit", () => {
    for (const { where, container } of containers) {
      expect(container.resources?.requests?.cpu, where).toBeDefined();
      expect(container.resources?.requests?.memory, where).toBeDefined();
      expect(container.resources?.limits?.memory, where).toBeDefined();
    }
  });

  it("probes every long-running container for liveness and readiness", () => {
    const serving = containers.filter((c) => c.kind !== "Job" && c.kind !== "CronJob");
    expect(serving.length).toBeGreaterThanOrEqual(3);
    for (const { where, container } of serving) {
      expect(container.livenessProbe, where).toBeDefined();
      expect(container.readinessProbe, where).toBeDefined();
    }
  });

  it("probes the servers on /healthz and /readyz", () => {
    for (const name of ["api", "gateway"]) {
      const c = containers.find(
        (x) => x.where === `Deployment/countersign-${name} container ${name}`,
      )!.container;
      expect(c.livenessProbe.httpGet.path).toBe("/healthz");
      expect(c.readinessProbe.httpGet.path).toBe("/readyz");
    }
  });

  it("pins every image to a tag or digest", () => {
    for (const { where, container } of containers) {
      expect(container.image, where).toMatch(/(:[\w.-]+|@sha256:[a-f0-9]{64})$/);
      expect(container.image, where).not.toMatch(/:latest$/);
    }
  });

  it("mounts a Kubernetes API token only where one is needed", () => {
    for (const { where, pod } of containers) {
      const needs =
        where.includes("operator") || where.includes("crd-upgrade") || where.includes("installation-secrets");
      expect(pod.automountServiceAccountToken, where).toBe(needs);
    }
  });
});
