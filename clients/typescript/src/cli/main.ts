#!/usr/bin/env node
import { parseArgs } from "./args.js";
import { CliError } from "./cloud/errors.js";
import { EXIT } from "./cloud/exit-codes.js";
import { parseCommandLine } from "./command-line.js";
import { actionsCancel } from "./commands/actions.js";
import { approvalsDecide, approvalsList, approvalsShow } from "./commands/approvals.js";
import type { CommandContext, CommandOutput } from "./commands/context.js";
import { delegationsGrant, delegationsList, delegationsRevoke } from "./commands/delegations.js";
import { identityBind, identityCreate } from "./commands/identity.js";
import { policyDiff, policyTest, policyValidate } from "./commands/policy.js";
import { principalCreate, principalRegister, principalReplace, principalShow } from "./commands/principal.js";
import { receiptsDownload, receiptsGet } from "./commands/receipts.js";
import { signin, signout } from "./commands/signin.js";
import { help } from "./help.js";
import { verifyCommand } from "./verify-command.js";

const commands: Record<string, (ctx: CommandContext) => Promise<CommandOutput>> = {
  signin,
  signout,
  "identity create": identityCreate,
  "identity bind": identityBind,
  "approvals list": approvalsList,
  "approvals show": approvalsShow,
  "approvals approve": (ctx) => approvalsDecide(ctx, "APPROVAL"),
  "approvals reject": (ctx) => approvalsDecide(ctx, "REJECTION"),
  "receipts get": receiptsGet,
  "receipts download": receiptsDownload,
  "actions cancel": actionsCancel,
  "principal create": principalCreate,
  "principal register": principalRegister,
  "principal replace": principalReplace,
  "principal show": principalShow,
  "delegations grant": delegationsGrant,
  "delegations list": delegationsList,
  "delegations revoke": delegationsRevoke,
  "policy validate": policyValidate,
  "policy test": policyTest,
  "policy diff": policyDiff,
};

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/** `countersign`: the command-line client. */
export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommandOutput> {
  const [first] = argv;
  if (first === "verify") {
    const command = parseArgs(argv);
    if (command.kind === "help") return { exitCode: 0, stdout: `${help.verify}\n`, stderr: "" };
    if (command.kind === "usage_error")
      return {
        exitCode: EXIT.usage,
        stdout: "",
        stderr: `countersign: ${command.message}\n${help.verify}\n`,
      };
    return verifyCommand(command);
  }
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    const topic = first === "help" ? (argv[1] ?? "") : "";
    return { exitCode: 0, stdout: `${help[topic] ?? help[""]}\n`, stderr: "" };
  }
  let group = first;
  try {
    const line = parseCommandLine(argv);
    group = line.words[0] ?? "";
    if (line.switches.has("help")) return { exitCode: 0, stdout: `${help[group] ?? help[""]}\n`, stderr: "" };
    const name = commands[group] ? group : `${group} ${line.words[1] ?? ""}`;
    const run = commands[name];
    if (!run)
      return {
        exitCode: EXIT.usage,
        stdout: "",
        stderr: `countersign: unknown command: ${line.words.slice(0, 2).join(" ")}\n${help[group] ?? help[""]}\n`,
      };
    if (commands[group] && line.words.length > 1)
      throw new CliError(`${group} takes no arguments`, EXIT.usage);
    return await run({ line, env, readStdin });
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    const asJson = argv.includes("--json");
    const usageHint = err.exitCode === EXIT.usage ? `\n${help[group] ?? help[""]}` : "";
    return {
      exitCode: err.exitCode,
      stdout: asJson
        ? `${JSON.stringify({ error: err.message, exit_code: err.exitCode, answer: err.body }, null, 2)}\n`
        : "",
      stderr: `countersign: ${err.message}${usageHint}\n`,
    };
  }
}

const output = await runCli(process.argv.slice(2));
process.stdout.write(output.stdout);
process.stderr.write(output.stderr);
process.exitCode = output.exitCode;
