/**
 * How the server sends mail (domain verification codes to an administrator address). The server has
 * no mail relay of its own: by default a message is written to the log at `warn`, where an operator
 * running without a relay can read it; a deployment with a relay passes its own transport to
 * `createServer`, and the tests pass one that records messages.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
}

export class LogMailTransport implements MailTransport {
  constructor(private readonly log: { warn(object: object, message: string): void }) {}

  async send(message: MailMessage): Promise<void> {
    this.log.warn({ mail: message }, `mail to ${message.to} (no mail relay configured: delivered to this log)`);
  }
}
