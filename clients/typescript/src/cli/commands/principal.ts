/**
 * `countersign principal create|register|show`: the organization principal
 * from the command line, for owners who keep configuration in Git. `create`
 * makes the key file; `register` signs the principal's first identity
 * document with it and sets it (POST /orgs/<id>/principal, an owner signed
 * in), and with --pem-out also writes the key as PKCS#8 PEM for the
 * operator's principal key Secret (docs/crds.md, Organization).
 */
import { identityGenesis, nodeSigner, signIdentity, timestamp } from "@countersign/core/evidence";
import { cloudRequest } from "../cloud/client.js";
import { CliError, usageError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { assertWritable, createKeyFile, readKeySeed, writePemFile } from "../cloud/key-file.js";
import { onlyFlags } from "../command-line.js";
import { creds, done, organization, type CommandContext, type CommandOutput } from "./context.js";

/** No default path: a principal's key is never confused with the personal key file. */
function principalKeyFile(ctx: CommandContext): string {
  const path = ctx.line.flags.get("key-file");
  if (!path) throw usageError("--key-file FILE is required (the principal's key file)");
  return path;
}

export async function principalCreate(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["key-file"]);
  const path = principalKeyFile(ctx);
  const signer = createKeyFile(path);
  return done(
    ctx,
    { kid: signer.kid, key_file: path },
    `Created principal key ${signer.kid} in ${path} (mode 0600). Register it with: countersign principal register --key-file ${path}`,
  );
}

export async function principalRegister(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["key-file", "name", "pem-out", "org", "url"]);
  const seed = readKeySeed(principalKeyFile(ctx));
  const pemOut = ctx.line.flags.get("pem-out");
  // Refused before anything is sent: a registered key whose PEM could not be written is a half-done step.
  if (pemOut) assertWritable(pemOut);
  const c = creds(ctx);
  if (c.kind !== "session")
    throw new CliError(
      "setting the organization principal needs a signed-in owner: run `countersign signin` (management keys cannot)",
      EXIT.auth,
    );
  const org = organization(ctx, c);
  const path = `/orgs/${encodeURIComponent(org)}/principal`;
  const signer = nodeSigner(seed);
  // A second, different first document by the same key would be equivocation, which makes the
  // principal permanently invalid: an already registered key is never signed for again.
  const current = (await cloudRequest(c, "GET", path)).body as PrincipalAnswer;
  if (current.principal?.kid === signer.kid) {
    if (pemOut) writePemFile(pemOut, seed);
    return done(
      ctx,
      current,
      `${signer.kid} is already the principal of organization ${org}.${savedTo(pemOut)}`,
    );
  }
  const document = signIdentity(
    identityGenesis({
      publicKey: signer.publicKey,
      actor_type: "principal",
      subject: { organization_id: org, id: org, name: ctx.line.flags.get("name") ?? null },
      issued_at: timestamp(new Date()),
    }),
    signer,
  );
  const registered = (await cloudRequest(c, "POST", path, { document })).body as PrincipalAnswer;
  if (pemOut) writePemFile(pemOut, seed);
  return done(
    ctx,
    registered,
    `${signer.kid} is now the principal of organization ${org}.${savedTo(pemOut)}`,
  );
}

interface PrincipalAnswer {
  principal: { kid: string; status: string; valid: boolean } | null;
}

const savedTo = (pemOut: string | undefined) =>
  pemOut ? ` The key is also in ${pemOut} (PKCS#8 PEM, mode 0600) for the Organization's Secret.` : "";

export async function principalShow(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url"]);
  const c = creds(ctx);
  const answer = (await cloudRequest(c, "GET", `/orgs/${encodeURIComponent(organization(ctx, c))}/principal`))
    .body as PrincipalAnswer;
  const p = answer.principal;
  return done(ctx, answer, p ? `${p.kid}  ${p.status}${p.valid ? "" : " (invalid)"}` : "No principal yet.");
}
