/** An account e-mail: the text and the links it carries (the outbox prints the links). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  links: string[];
}

/** Sends one message or throws; `describe` says where messages go (for the startup banner). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  describe: string;
  close?(): void;
}
