/**
 * `countersign signin` and `signout`: a session from e-mail and password
 * (POST /auth/signin), stored for the next commands. The password comes from
 * COUNTERSIGN_PASSWORD or standard input (--password-stdin), never a flag.
 */
import { forgetSession, readSession, saveSession } from "../cloud/credentials.js";
import { noContentSchema, sessionAnswerSchema } from "@countersign/protocol/wire";
import { cloudRequest, signinRequest } from "../cloud/client.js";
import { CliError, usageError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { onlyFlags } from "../command-line.js";
import { done, type CommandContext, type CommandOutput } from "./context.js";

export async function signin(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["url", "email", "dashboard-origin"]);
  const url = ctx.line.flags.get("url") ?? ctx.env.COUNTERSIGN_URL;
  const email = ctx.line.flags.get("email") ?? ctx.env.COUNTERSIGN_EMAIL;
  if (!url) throw usageError("give the Cloud API URL with --url or COUNTERSIGN_URL");
  if (!email) throw usageError("give the e-mail address with --email or COUNTERSIGN_EMAIL");
  const password = ctx.line.switches.has("password-stdin")
    ? (await ctx.readStdin()).replace(/\r?\n$/, "")
    : ctx.env.COUNTERSIGN_PASSWORD;
  if (!password)
    throw usageError("give the password on standard input with --password-stdin, or in COUNTERSIGN_PASSWORD");
  const { answer, sessionToken: token } = await signinRequest(url, sessionAnswerSchema, { email, password });
  const { session } = answer;
  if (!token) throw new CliError("the sign-in answer carried no session", EXIT.unavailable);
  const origin =
    ctx.line.flags.get("dashboard-origin") ?? ctx.env.COUNTERSIGN_DASHBOARD_ORIGIN ?? new URL(url).origin;
  const file = saveSession(ctx.env, {
    url,
    origin,
    session_token: token,
    csrf_token: session.csrf_token,
    user_id: session.user.id,
    current_organization_id: session.current_organization_id,
  });
  // Neither the session token nor the csrf token is printed.
  const shown = {
    user: session.user,
    current_organization_id: session.current_organization_id,
    session_file: file,
  };
  return done(ctx, shown, `Signed in as ${email}. Session stored in ${file}.`);
}

export async function signout(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, []);
  const session = readSession(ctx.env);
  if (session)
    await cloudRequest({ kind: "session", session }, "POST", "/auth/signout", noContentSchema).catch(
      () => undefined,
    );
  forgetSession(ctx.env);
  return done(ctx, { signed_out: true }, "Signed out.");
}
