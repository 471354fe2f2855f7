import { mayFollow } from "../chain.js";
import { timeOf } from "../fields.js";
import { isStepBody, type SignedObject, type StepBody } from "../signed-object.js";
import type { VerifyContext } from "./context.js";

const maxPath = 7; // TASK, PROPOSAL, APPROVAL, EXECUTION, RESULT is the longest; a bound stops loops.

/**
 * Check `chain`: walk parent links from the receipt's head back to its root.
 * Each link is a hash (the parent's id), each step names the TASK as its
 * thread, may follow its parent in the workflow, and is not older than it.
 * The bundle lists the path first and in order, then only supporting objects.
 */
export function checkChain(ctx: VerifyContext): void {
  const { findings, receipt, byId } = ctx;
  findings.run("chain");
  const { root, head } = receipt.body.payload;
  const reversed: SignedObject<StepBody>[] = [];
  let id: string | null = head;
  while (id !== null) {
    const object = byId.get(id);
    if (!object || !isStepBody(object.body)) {
      findings.error(
        "chain",
        "CHAIN_BROKEN",
        object ? `${object.body.type} is not a step` : "a step of the path is missing",
        {
          object_id: id,
        },
      );
      return;
    }
    if (reversed.length >= maxPath) {
      findings.error("chain", "CHAIN_BROKEN", "the path is longer than the workflow allows", {
        object_id: id,
      });
      return;
    }
    reversed.push(object as SignedObject<StepBody>);
    id = object.body.parent;
  }
  const path = reversed.reverse();
  const first = path[0]!;
  if (first.id !== root || first.body.type !== "TASK") {
    findings.error("chain", "CHAIN_BROKEN", "the path does not start at the receipt's root TASK", {
      object_id: first.id,
    });
    return;
  }
  let ok = true;
  for (let i = 1; i < path.length; i++) {
    const step = path[i]!;
    const parent = path[i - 1]!;
    if (step.body.thread !== root) {
      findings.error("chain", "CHAIN_BROKEN", `${step.body.type} names another thread`, {
        object_id: step.id,
      });
      ok = false;
    }
    if (!mayFollow(step.body.type, parent.body.type)) {
      findings.error("chain", "CHAIN_INVALID_STEP", `${step.body.type} may not follow ${parent.body.type}`, {
        object_id: step.id,
      });
      ok = false;
    }
    if (timeOf(step.body.issued_at) < timeOf(parent.body.issued_at)) {
      findings.error("chain", "CHAIN_INVALID_STEP", `${step.body.type} is dated before its parent`, {
        object_id: step.id,
      });
      ok = false;
    }
  }
  checkOrder(ctx, path);
  checkOnBehalfOf(ctx, path);
  if (ok) ctx.path = path;
}

function checkOrder(ctx: VerifyContext, path: SignedObject<StepBody>[]): void {
  const listed = ctx.listedIds;
  path.forEach((step, i) => {
    if (listed[i] !== step.id) {
      ctx.findings.error("chain", "CHAIN_ORDER", `objects[${i}] should be the path's ${step.body.type}`, {
        object_id: step.id,
      });
    }
  });
  const onPath = new Set(path.map((s) => s.id));
  for (const object of ctx.objects) {
    if (isStepBody(object.body) && !onPath.has(object.id)) {
      ctx.findings.error("chain", "CHAIN_ORDER", `a ${object.body.type} that is not on the receipt's path`, {
        object_id: object.id,
      });
    }
  }
}

/** Everyone on the path acts for the TASK's principal; the principal itself cancels. */
function checkOnBehalfOf(ctx: VerifyContext, path: SignedObject<StepBody>[]): void {
  const principal = path[0]!.body.on_behalf_of;
  for (const step of path) {
    const actingFor = step.body.type === "CANCELLATION" ? step.body.actor : step.body.on_behalf_of;
    if (actingFor !== principal) {
      ctx.findings.error(
        "chain",
        "ON_BEHALF_OF_MISMATCH",
        `${step.body.type} acts for another principal than the TASK`,
        {
          object_id: step.id,
        },
      );
    }
  }
}
