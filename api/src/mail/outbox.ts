import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Mailer, MailMessage } from "./mailer.js";

/**
 * Without an SMTP server (`make run`), each message is written to a file in
 * the outbox folder and its links are announced (printed by `make run`), so a
 * person on the machine can verify an address or reset a password.
 */
export function outboxMailer(dir: string, from: string, announce: (line: string) => void): Mailer {
  let n = 0;
  return {
    describe: `outbox folder ${path.resolve(dir)}`,
    async send(m: MailMessage) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = path.join(
        dir,
        `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}-${n++}.eml`,
      );
      const text = `From: ${from}\nTo: ${m.to}\nSubject: ${m.subject}\nDate: ${new Date().toUTCString()}\n\n${m.text}\n`;
      writeFileSync(file, text, { mode: 0o600 });
      announce(`mail to ${m.to}: ${m.subject} (${file})`);
      for (const link of m.links) announce(`  ${link}`);
    },
  };
}
