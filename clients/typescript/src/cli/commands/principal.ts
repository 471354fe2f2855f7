/**
 * `countersign principal create|register|replace|show`: the organization principal from the
 * command line, for owners who keep configuration in Git. `create` makes the key file (PKCS#8 PEM,
 * the format of the dashboard's backup and of the operator's Organization Secret); `register` signs
 * the principal's first identity document with it and sets it (POST /orgs/<id>/principal, an owner
 * signed in); `replace` registers a new key in place of the current principal (SPEC 2.1: an owner
 * can replace it), with the old key's own `replaced` document when the old key is still at hand.
 */
import {
  identitySuccessor,
  identityGenesis,
  nodeSigner,
  signIdentity,
  timestamp,
  type Kid,
  type Signer,
} from "@countersign/protocol/evidence";
import { principalStateSchema, principalSubmittedSchema } from "@countersign/protocol/wire";
import { cloudRequest } from "../cloud/client.js";
import { CliError, usageError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { assertWritable, createKeyFile, readKeyFile, readKeySeed, writePemFile } from "../cloud/key-file.js";
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
  const current = await cloudRequest(c, "GET", principalPath(org), principalStateSchema);
  const already = current.principal?.kid === signer.kid;
  const answer = already
    ? current
    : await cloudRequest(c, "POST", principalPath(org), principalSubmittedSchema, {
        document: genesis(signer, org, ctx.line.flags.get("name")),
      }).catch((err: unknown) => {
        // The Cloud API refuses a second principal (CONFLICT, PRINCIPAL_EXISTS); say what to run instead.
        if (err instanceof CliError && current.principal)
          throw new CliError(
            `${err.message}\norganization ${org} already has the principal ${current.principal.kid}; to put ${signer.kid} in its place run: countersign principal replace --key-file ${principalKeyFile(ctx)}`,
            err.exitCode,
            err.body,
          );
        throw err;
      });
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

/** The principal's first identity document, signed by its own key; a replacement names the KID it replaces. */
const genesis = (signer: Signer, org: string, name: string | undefined, replaces: Kid | null = null) =>
  signIdentity(
    identityGenesis({
      publicKey: signer.publicKey,
      actor_type: "principal",
      subject: { organization_id: org, id: org, name: name ?? null },
      issued_at: timestamp(new Date()),
      replaces,
    }),
    signer,
  );

/**
 * Replaces the organization principal by the key in --key-file. With --old-key-file (the current
 * principal's key, when it is not lost) the old key also signs its own last document, `replaced` by
 * the new KID, so the old log says where authority went. Delegations signed by the old principal
 * stop authorizing at once (the Gateway accepts only the current principal's): grant them again
 * with the new key (docs/clients.md).
 */
export async function principalReplace(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["key-file", "old-key-file", "name", "org", "url"]);
  const signer = readKeyFile(principalKeyFile(ctx));
  const oldPath = ctx.line.flags.get("old-key-file");
  const old = oldPath ? readKeyFile(oldPath) : null;
  const c = creds(ctx);
  if (c.kind !== "session")
    throw new CliError(
      "replacing the organization principal needs a signed-in owner: run `countersign signin` (management keys cannot)",
      EXIT.auth,
    );
  const org = organization(ctx, c);
  const current = (await cloudRequest(c, "GET", principalPath(org), principalStateSchema)).principal;
  if (!current)
    throw new CliError(
      `organization ${org} has no principal to replace; register one with: countersign principal register --key-file ${principalKeyFile(ctx)}`,
      EXIT.refused,
    );
  if (current.kid === signer.kid)
    throw new CliError(
      `${signer.kid} is already the principal of organization ${org}; create a new key with: countersign principal create --key-file NEW_FILE`,
      EXIT.usage,
    );
  if (old && old.kid !== current.kid)
    throw new CliError(
      `${oldPath} holds ${old.kid}, not the current principal ${current.kid}; give the current principal's key file, or leave --old-key-file out if it is lost`,
      EXIT.usage,
    );
  const last = current.documents.at(-1)!;
  // An equivocated principal's log is closed for good: it gets no further document, only a successor.
  const predecessor =
    old && current.status === "active"
      ? signIdentity(
          identitySuccessor(last, {
            status: "replaced",
            replaced_by: signer.kid,
            issued_at: timestamp(new Date()),
          }),
          old,
        )
      : undefined;
  const answer = await cloudRequest(c, "POST", principalPath(org), principalSubmittedSchema, {
    document: genesis(signer, org, ctx.line.flags.get("name"), last.body.kid),
    ...(predecessor ? { predecessor } : {}),
  });
  return done(
    ctx,
    answer,
    `${signer.kid} now replaces ${current.kid} as the principal of organization ${org}. Delegations signed by ${current.kid} no longer authorize: grant them again with countersign delegations grant --principal-key-file ${principalKeyFile(ctx)}`,
  );
}

export async function principalShow(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url"]);
  const c = creds(ctx);
  const answer = await cloudRequest(c, "GET", principalPath(organization(ctx, c)), principalStateSchema);
  const p = answer.principal;
  return done(ctx, answer, p ? `${p.kid}  ${p.status}${p.valid ? "" : " (invalid)"}` : "No principal yet.");
}
