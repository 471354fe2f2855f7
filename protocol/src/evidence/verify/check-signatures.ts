import { checkSignedObject } from "../verify-object.js";
import type { VerifyContext } from "./context.js";

/** Check `signatures`: every object, the receipt included, against its signer's identity. */
export function checkSignatures(ctx: VerifyContext): void {
  ctx.findings.run("signatures");
  for (const object of [ctx.receipt, ...ctx.objects]) {
    const result = checkSignedObject(object, ctx.identities.get(object.body.actor), ctx.verify);
    if (result.ok) {
      ctx.authentic.add(object.id);
      continue;
    }
    if (result.code === "IDENTITY_EQUIVOCATION") ctx.findings.equivocated.add(object.body.actor);
    ctx.findings.error("signatures", result.code, `${object.body.type}: ${result.message}`, {
      object_id: object.id,
      kid: object.body.actor,
    });
  }
}
