/**
 * A received e-mail as a person reads it: recipients, subject and the text body, decoded from the
 * quoted-printable or base64 transfer encoding nodemailer chose. Enough for the plain-text account
 * mails the Cloud API sends; not a general MIME parser.
 */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  raw: string;
  receivedAt: Date;
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

export function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  let body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const encoding = header("Content-Transfer-Encoding").toLowerCase();
  if (encoding === "quoted-printable") body = decodeQuotedPrintable(body);
  else if (encoding === "base64") body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  return { to, subject: header("Subject"), text: body.replace(/\r\n/g, "\n"), raw, receivedAt: new Date() };
}
