/** The command line of `countersign`, parsed without a library: one subcommand, a few flags. */
export type Command =
  | { kind: "help" }
  | { kind: "verify"; file: string; json: boolean; trustIssuers: string[]; trustPrincipals: string[] }
  | { kind: "usage_error"; message: string };

export const usage = `Usage: countersign verify FILE.svcbundle [--json] [--trust-issuer KID]... [--trust-principal KID]...

Verifies an exported evidence bundle offline (no network) and prints a summary.
  --json               print the verification result as JSON
  --trust-issuer KID   require the Gateway identity that signed the receipt to be KID
  --trust-principal KID  require the organization principal to be KID
Exit status: 0 valid, 1 invalid, 2 usage error or unreadable file.`;

export function parseArgs(argv: readonly string[]): Command {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h") return { kind: "help" };
  if (sub !== "verify") return { kind: "usage_error", message: `unknown command: ${sub}` };
  let file: string | undefined;
  let json = false;
  const trustIssuers: string[] = [];
  const trustPrincipals: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--json") json = true;
    else if (arg === "--help" || arg === "-h") return { kind: "help" };
    else if (arg === "--trust-issuer" || arg === "--trust-principal") {
      const value = rest[++i];
      if (value === undefined) return { kind: "usage_error", message: `${arg} needs a KID` };
      (arg === "--trust-issuer" ? trustIssuers : trustPrincipals).push(value);
    } else if (arg.startsWith("-")) return { kind: "usage_error", message: `unknown option: ${arg}` };
    else if (file === undefined) file = arg;
    else return { kind: "usage_error", message: "verify takes one file" };
  }
  if (file === undefined) return { kind: "usage_error", message: "verify needs a bundle file" };
  return { kind: "verify", file, json, trustIssuers, trustPrincipals };
}
