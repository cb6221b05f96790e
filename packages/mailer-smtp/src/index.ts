/**
 * The SMTP mailer of Sendline, through nodemailer.
 *
 * @since 0.1.0
 */
export * as SmtpMailer from "./SmtpMailer.js"
