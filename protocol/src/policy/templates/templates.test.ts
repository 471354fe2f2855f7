import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { lintPolicy } from "../lint.js";
import { validatePolicy } from "../validate.js";
import { policyTemplate, policyTemplates } from "./index.js";

describe("policy templates", () => {
  it("ship as data: three, each a valid revision-1 document without lint warnings", () => {
    expect(policyTemplates.map((t) => t.id)).toEqual([
      "read-only-agent",
      "spend-limit-with-approval",
      "deny-destructive-actions",
    ]);
    for (const t of policyTemplates) {
      const r = validatePolicy(JSON.parse(JSON.stringify(t.document)));
      expect(r.ok, t.id).toBe(true);
      expect(r.ok && r.revision).toBe(1);
      expect(lintPolicy(t.document).warnings, t.id).toEqual([]);
    }
  });

  it("hand out editable copies and keep the originals frozen", () => {
    const copy = policyTemplate("read-only-agent")!;
    copy.document.rules.length = 0;
    expect(policyTemplate("read-only-agent")!.document.rules).toHaveLength(2);
    expect(Object.isFrozen(policyTemplates[0]!.document.rules)).toBe(true);
    expect(policyTemplate("nope")).toBeUndefined();
  });

  it("read-only agent allows reads and denies the rest", () => {
    const p = compilePolicy(policyTemplate("read-only-agent")!.document);
    const effect = (action: string) => p.evaluate({ tool: "t", action }).effect;
    for (const a of [
      "crm.contacts.list",
      "github.get_issue",
      "db.read",
      "get_issue",
      "list_repos",
      "files.search",
    ])
      expect(effect(a), a).toBe("allow");
    for (const a of [
      "crm.contacts.create",
      "github.delete_repo",
      "db.write",
      "update_issue",
      "reader.write",
      "forget_it",
    ])
      expect(effect(a), a).toBe("deny");
  });

  it("spend limit allows small amounts, holds larger ones, refuses above the cap", () => {
    const p = compilePolicy(policyTemplate("spend-limit-with-approval")!.document);
    const at = (amount: string | null, currency = "USD") => {
      const d = p.evaluate({ tool: "pay", action: "pay.send", amount, currency });
      return [d.effect, d.rule_id];
    };
    expect(at("100.00")).toEqual(["allow", "within-limit"]);
    expect(at("100.01")).toEqual(["require_approval", "above-threshold"]);
    expect(at("10000.00")).toEqual(["require_approval", "above-threshold"]);
    expect(at("10000.01")).toEqual(["deny", "hard-cap"]);
    expect(at("-5")).toEqual(["deny", null]);
    expect(at("5", "EUR")).toEqual(["deny", null]);
    expect(at(null)).toEqual(["deny", null]);
  });

  it("deny destructive denies destructive actions and allows others", () => {
    const p = compilePolicy(policyTemplate("deny-destructive-actions")!.document);
    const effect = (action: string) => p.evaluate({ tool: "t", action }).effect;
    for (const a of ["repo.delete", "db.drop_table", "drop_database", "s3.purge", "k8s.remove_node"])
      expect(effect(a), a).toBe("deny");
    for (const a of ["repo.read", "db.query", "deleted_items.list", "remover.status"])
      expect(effect(a), a).toBe("allow");
  });
});
