#!/usr/bin/env node
import { parseArgs, usage } from "./args.js";
import { verifyCommand, type CommandOutput } from "./verify-command.js";

/** `countersign`: the command-line client. Today one command, `verify`. */
export async function runCli(argv: readonly string[]): Promise<CommandOutput> {
  const command = parseArgs(argv);
  switch (command.kind) {
    case "help":
      return { exitCode: 0, stdout: `${usage}\n`, stderr: "" };
    case "usage_error":
      return { exitCode: 2, stdout: "", stderr: `countersign: ${command.message}\n${usage}\n` };
    case "verify":
      return verifyCommand(command);
  }
}

const output = await runCli(process.argv.slice(2));
process.stdout.write(output.stdout);
process.stderr.write(output.stderr);
process.exitCode = output.exitCode;
