/**
 * `countersign delegations grant|list|revoke`: an agent's delegations from the command line, for
 * whoever keeps the organization principal's key file outside Kubernetes. grant and revoke sign the
 * DELEGATION or REVOCATION with that key here (the key never leaves this machine) and submit it as
 * a signed-in owner or admin; list reads them with any credentials that may read agents.
 */
import { signDelegation, signRevocation, type Signer } from "@countersign/protocol/evidence";
import {
  agentListSchema,
  delegationAnswerSchema,
  delegationListSchema,
  principalStateSchema,
  type Delegation,
} from "@countersign/protocol/wire";
import { cloudRequest } from "../cloud/client.js";
import type { Credentials } from "../cloud/credentials.js";
import { CliError, usageError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { readKeyFile } from "../cloud/key-file.js";
import { onlyFlags } from "../command-line.js";
import { parseExpiry } from "./expiry.js";
import {
  creds,
  done,
  idArgument,
  keyFilePath,
  organization,
  type CommandContext,
  type CommandOutput,
} from "./context.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Submitting signed objects needs a person: management keys never submit or revoke delegations. */
function personOnly(c: Credentials, what: string): void {
  if (c.kind !== "session")
    throw new CliError(
      `${what} a delegation needs a signed-in owner or admin: run \`countersign signin\` (management keys cannot)`,
      EXIT.auth,
    );
}

/** --agent as an id, or as a name looked up among the organization's agents. */
async function agentId(ctx: CommandContext, c: Credentials, org: string): Promise<string> {
  const agent = ctx.line.flags.get("agent");
  if (!agent) throw usageError("--agent AGENT (id or name) is required");
  if (uuid.test(agent)) return agent;
  let cursor: string | null = null;
  do {
    const query: string = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await cloudRequest(c, "GET", `${org}/agents${query}`, agentListSchema);
    const found = page.items.find((a) => a.name === agent);
    if (found) return found.id;
    cursor = page.next_cursor;
  } while (cursor);
  throw new CliError(`no agent named ${agent} in this organization`, EXIT.refused);
}

function permissionsFlag(ctx: CommandContext): string[] {
  const list = (ctx.line.flags.get("permissions") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (list.length === 0)
    throw usageError("--permissions LIST is required (comma-separated: payments.refund,mail.*)");
  return list;
}

const orgPath = (ctx: CommandContext, c: Credentials) => `/orgs/${encodeURIComponent(organization(ctx, c))}`;

export async function delegationsGrant(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, [
    "org",
    "url",
    "agent",
    "permissions",
    "expires-in",
    "expires-at",
    "principal-key-file",
  ]);
  if (ctx.line.words.length > 2) throw usageError("grant takes no arguments; name the agent with --agent");
  const permissions = permissionsFlag(ctx);
  const expiresAt = parseExpiry(
    ctx.line.flags.get("expires-in"),
    ctx.line.flags.get("expires-at"),
    new Date(),
  );
  const signer: Signer = readKeyFile(keyFilePath(ctx, "principal-key-file"));
  const c = creds(ctx);
  personOnly(c, "granting");
  const org = orgPath(ctx, c);
  const agent = await agentId(ctx, c, org);
  let delegation;
  try {
    delegation = signDelegation(signer, {
      organization_id: organization(ctx, c),
      agent_id: agent,
      permissions,
      expires_at: expiresAt,
    });
  } catch {
    throw usageError(
      "--permissions must be action names, prefix.* families or * (letters, digits, _ : - / between dots)",
    );
  }
  const answer = await cloudRequest(
    c,
    "POST",
    `${org}/agents/${encodeURIComponent(agent)}/delegations`,
    delegationAnswerSchema,
    { delegation },
  );
  const d = answer.delegation;
  return done(
    ctx,
    answer,
    `Granted ${d.permissions.join(", ")} to agent ${d.agent_id} until ${d.expires_at}: delegation ${d.id}.\n` +
      `Revoke it with: countersign delegations revoke ${d.id} --agent ${d.agent_id} --principal-key-file FILE`,
  );
}

export async function delegationsList(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url", "agent", "limit", "cursor"]);
  if (ctx.line.words.length > 2) throw usageError("list takes no arguments; name the agent with --agent");
  const c = creds(ctx);
  const org = orgPath(ctx, c);
  const agent = await agentId(ctx, c, org);
  const query = new URLSearchParams();
  for (const flag of ["limit", "cursor"]) {
    const value = ctx.line.flags.get(flag);
    if (value !== undefined) query.set(flag, value);
  }
  const suffix = query.size ? `?${query}` : "";
  const answer = await cloudRequest(
    c,
    "GET",
    `${org}/agents/${encodeURIComponent(agent)}/delegations${suffix}`,
    delegationListSchema,
  );
  // Only the current principal's delegations grant (docs/clients.md, "Replacing the principal"): one
  // signed by a replaced principal is still listed, and said to no longer authorize.
  const current =
    (await cloudRequest(c, "GET", `${org}/principal`, principalStateSchema)).principal?.kid ?? null;
  const lines = answer.items.map(
    (d) =>
      `${d.id}  ${d.state.padEnd(7)}  until ${d.expires_at}  ${d.permissions.join(",")}` +
      (d.state === "active" && d.object.body.actor !== current
        ? `  (signed by ${d.object.body.actor}, not the current principal: no longer authorizes)`
        : ""),
  );
  if (answer.next_cursor) lines.push(`(more: --cursor ${answer.next_cursor})`);
  return done(ctx, answer, lines.length ? lines.join("\n") : "No delegations.");
}

export async function delegationsRevoke(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url", "agent", "principal-key-file"]);
  const id = decodeURIComponent(idArgument(ctx, "delegation"));
  const signer = readKeyFile(keyFilePath(ctx, "principal-key-file"));
  const c = creds(ctx);
  personOnly(c, "revoking");
  const org = orgPath(ctx, c);
  const agent = await agentId(ctx, c, org);
  const delegation = await findDelegation(c, `${org}/agents/${encodeURIComponent(agent)}/delegations`, id);
  const revocation = signRevocation(signer, delegation.object_id);
  const answer = await cloudRequest(
    c,
    "POST",
    `${org}/delegations/${encodeURIComponent(id)}/revoke`,
    delegationAnswerSchema,
    { revocation },
  );
  return done(
    ctx,
    answer,
    `Revoked delegation ${answer.delegation.id} of agent ${answer.delegation.agent_id} (state ${answer.delegation.state}).`,
  );
}

/** The delegation's signed object id, which the REVOCATION names: read from the agent's list. */
async function findDelegation(c: Credentials, path: string, id: string): Promise<Delegation> {
  let cursor: string | null = null;
  do {
    const query: string = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await cloudRequest(c, "GET", `${path}${query}`, delegationListSchema);
    const found = page.items.find((d) => d.id === id);
    if (found) return found;
    cursor = page.next_cursor;
  } while (cursor);
  throw new CliError(`the agent has no delegation ${id}`, EXIT.refused);
}
