import nodemailer from "nodemailer";
import type { Mailer, MailMessage } from "./mailer.js";

/** Messages through nodemailer to the configured SMTP server (COUNTERSIGN_SMTP_URL). */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  const target = new URL(url);
  return {
    describe: `SMTP ${target.protocol}//${target.hostname}:${target.port || "(default port)"}`,
    async send(m: MailMessage) {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    },
    close: () => transport.close(),
  };
}
