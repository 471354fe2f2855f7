/**
 * `countersign principal create|register|show`: the organization principal
 * from the command line, for owners who keep configuration in Git. `create`
 * makes the key file; `register` signs the principal's first identity
 * document with it and sets it (POST /orgs/<id>/principal, an owner signed
 * in), and with --pem-out also writes the key as PKCS#8 PEM for the
 * operator's principal key Secret (docs/crds.md, Organization).
 */
import {
  identityGenesis,
  nodeSigner,
  signIdentity,
  timestamp,
  type Signer,
} from "@countersign/protocol/evidence";
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
  const signer = nodeSigner(seed);
  // A second, different first document by the same key would be equivocation, which makes the
  // principal permanently invalid: an already registered key is never signed for again.
  const current = (await cloudRequest(c, "GET", principalPath(org))).body as PrincipalAnswer;
  const already = current.principal?.kid === signer.kid;
  const answer = already
    ? current
    : ((
        await cloudRequest(c, "POST", principalPath(org), {
          document: genesis(signer, org, ctx.line.flags.get("name")),
        })
      ).body as PrincipalAnswer);
  if (pemOut) writePemFile(pemOut, seed);
  const saved = pemOut
    ? ` The key is also in ${pemOut} (PKCS#8 PEM, mode 0600) for the Organization's Secret.`
    : "";
  return done(
    ctx,
    answer,
    `${signer.kid} is ${already ? "already" : "now"} the principal of organization ${org}.${saved}`,
  );
}

const principalPath = (org: string) => `/orgs/${encodeURIComponent(org)}/principal`;

/** The principal's first identity document, signed by its own key. */
const genesis = (signer: Signer, org: string, name: string | undefined) =>
  signIdentity(
    identityGenesis({
      publicKey: signer.publicKey,
      actor_type: "principal",
      subject: { organization_id: org, id: org, name: name ?? null },
      issued_at: timestamp(new Date()),
    }),
    signer,
  );

interface PrincipalAnswer {
  principal: { kid: string; status: string; valid: boolean } | null;
}

export async function principalShow(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url"]);
  const c = creds(ctx);
  const answer = (await cloudRequest(c, "GET", principalPath(organization(ctx, c)))).body as PrincipalAnswer;
  const p = answer.principal;
  return done(ctx, answer, p ? `${p.kid}  ${p.status}${p.valid ? "" : " (invalid)"}` : "No principal yet.");
}
