/**
 * `make run`'s SMTP server (smtp-server): the Cloud API sends account mail to it over real SMTP,
 * and it keeps the newest messages in memory for the inbox page. Loopback only, no TLS, no auth:
 * it is a catcher for one machine, never a relay.
 */
import { SMTPServer } from "smtp-server";
import { parseMail, type ReceivedMail } from "./message.js";

const KEEP = 200;

export interface SmtpCatcher {
  url: string;
  messages(): readonly ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpCatcher(host: string, port: number): Promise<SmtpCatcher> {
  const kept: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        kept.unshift(
          parseMail(
            Buffer.concat(chunks).toString("latin1"),
            session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          ),
        );
        kept.length = Math.min(kept.length, KEEP);
        callback();
      });
    },
  });
  // SMTPServer re-emits its listener's and its connections' errors as its own 'error' event, which
  // without a listener ends the process with a stack trace: at start one fails the start (a port
  // another program holds, reported in one line); later a client's broken connection is not fatal.
  let listening = false;
  await new Promise<void>((resolve, reject) => {
    server.on("error", (err) => {
      if (!listening) reject(err);
    });
    server.listen(port, host, () => {
      listening = true;
      resolve();
    });
  });
  const addr = server.server.address();
  const bound = typeof addr === "object" && addr ? addr.port : port;
  return {
    url: `smtp://${host}:${bound}`,
    messages: () => kept,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
