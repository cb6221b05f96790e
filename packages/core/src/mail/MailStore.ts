/**
 * Storage port for the mail outbox. Mail goes out as events do: the store write that causes a mail
 * writes it in its own transaction, so the mail exists if and only if that write committed; the
 * `MailSender` worker then claims due mails, sends them and records each attempt. A request that
 * causes a mail only writes a row: it never waits on, nor fails with, the mail server.
 *
 * Including mails in another write: the port of that write takes them as an argument
 * (`ReadonlyArray<Mail>`, made with `Mail.make`), and its store writes them in the same transaction.
 * In `@sendline/store-sql` that is `Mails.insert(sql, mails)` run inside the write's
 * `Database.transaction` (see `Mails`); `insert` below is for a mail that no other write causes.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Mail } from "./Mail.js"

/** The mail outbox. @since 0.1.0 @category ports */
export class MailStore extends Context.Tag("@sendline/core/MailStore")<MailStore, {
  /** Writes the mails, all or none, in one transaction of their own (none: nothing). */
  readonly insert: (mails: ReadonlyArray<Mail>) => Effect.Effect<void, StoreUnavailable>
  /** The mail `id`, as it stands. */
  readonly findById: (id: string) => Effect.Effect<Option.Option<Mail>, StoreUnavailable>
  /**
   * Claims up to `limit` pending mails due at `now` (`nextAttemptAt <= now`) that no live claim
   * holds, the longest due first, and holds them until `leaseUntil`. Two claimers, in one process or
   * several, never get the same mail while its lease lasts; a claimer that dies loses it when the
   * lease ends.
   */
  readonly claim: (
    now: number,
    limit: number,
    leaseUntil: number
  ) => Effect.Effect<ReadonlyArray<Mail>, StoreUnavailable>
  /**
   * Records attempts, in one transaction: each mail's status, attempts, `nextAttemptAt`, `sentAt`
   * and `lastError` replace those stored while it is still pending, and its claim ends. For each,
   * whether it did (false when the mail was no longer pending: another claimer recorded it first).
   */
  readonly record: (attempted: ReadonlyArray<Mail>) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
}>() {}
