/**
 * `countersign identity create|bind`: a personal Ed25519 key in a local key
 * file (0600), bound to the signed-in person through the Cloud API with a
 * one-use challenge (docs/configuration-api.md, "Personal identities").
 */
import { identityGenesis, signIdentity, timestamp, toBase64url } from "@countersign/protocol/evidence";
import { identityAnswerSchema, identityChallengeAnswerSchema } from "@countersign/protocol/wire";
import { cloudRequest } from "../cloud/client.js";
import { CliError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { createKeyFile, readKeyFile } from "../cloud/key-file.js";
import { onlyFlags } from "../command-line.js";
import { creds, done, keyFilePath, type CommandContext, type CommandOutput } from "./context.js";

/** The label the Cloud API checks a challenge signature over (it keeps it from ever being a signed object). */
const challengeMessage = (challenge: string) =>
  new TextEncoder().encode(`countersign-identity-challenge:${challenge}`);

export async function identityCreate(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["key-file"]);
  const path = keyFilePath(ctx);
  const signer = createKeyFile(path);
  return done(
    ctx,
    { kid: signer.kid, key_file: path },
    `Created personal key ${signer.kid} in ${path} (mode 0600). Bind it with: countersign identity bind`,
  );
}

export async function identityBind(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["key-file", "name", "url"]);
  const c = creds(ctx);
  if (c.kind !== "session")
    throw new CliError(
      "binding a personal identity needs a person: run `countersign signin` (management keys cannot)",
      EXIT.auth,
    );
  const signer = readKeyFile(keyFilePath(ctx));
  const document = signIdentity(
    identityGenesis({
      publicKey: signer.publicKey,
      actor_type: "person",
      // A personal identity is per person, not per organization (docs/evidence.md).
      subject: {
        organization_id: "personal",
        id: c.session.user_id,
        name: ctx.line.flags.get("name") ?? null,
      },
      issued_at: timestamp(new Date()),
    }),
    signer,
  );
  const challenge = await cloudRequest(c, "POST", "/me/identity-challenges", identityChallengeAnswerSchema);
  const signature = toBase64url(signer.sign(challengeMessage(challenge.challenge.challenge)));
  const bound = await cloudRequest(c, "POST", "/me/identities", identityAnswerSchema, {
    challenge_id: challenge.challenge.id,
    signature,
    document,
  });
  return done(ctx, bound, `Bound personal identity ${bound.identity.kid}.`);
}
