import { EXIT } from "./exit-codes.js";

/** A command that cannot finish: its message for stderr and its exit status. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** The Cloud API's error body, for --json. */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);
