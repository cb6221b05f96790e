/**
 * The administration commands: `accounts create`, `accounts limit`, `keys create`, `keys revoke`, `sids import`,
 * `opt-outs import`. Each
 * prints what it made as one JSON object on stdout (the API's field names); a refusal fails with the
 * core's error, which the executable prints on stderr led by its CONTRACT code.
 *
 * @since 0.1.0
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import { type Account, Admin, Errors, Permission, Spending, type SpendingStore, Timestamp } from "@sendline/core"
import { Console, Effect, Option, Schema, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as UseCases from "./UseCases.js"

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const accountJson = (a: Account.Account) => ({
  id: a.id,
  name: a.name,
  type: a.type,
  admin_email: a.adminEmail,
  ...(a.network === undefined ? {} : { network: a.network }),
  markets: a.markets,
  identifiers: a.identifiers.map((i) => ({ identifier_type: i.identifierType, identifier_value: i.identifierValue })),
  created_at: Timestamp.format(a.createdAt)
})

const keyJson = ({ apiKey, secret }: Admin.IssuedKey) => ({
  id: apiKey.id,
  key: secret,
  account_id: apiKey.accountId,
  permissions: apiKey.permissions,
  expires_at: apiKey.expiresAt === undefined ? null : Timestamp.format(apiKey.expiresAt),
  created_at: Timestamp.format(apiKey.createdAt)
})

/** An `--identifier` option's `TYPE:VALUE`, unchecked (the use case checks it). */
const identifierOf = (raw: string) => {
  const [type, ...rest] = raw.split(":")
  return type === undefined || type === "" || rest.join(":") === ""
    ? Errors.invalidParameter("identifier", `--identifier ${raw} must be TYPE:VALUE.`)
    : Effect.succeed({ identifierType: type, identifierValue: rest.join(":") })
}

/**
 * `accounts create`: `identifier` as given, each `TYPE:VALUE`.
 *
 * @since 0.1.0
 * @category commands
 */
export const createAccount = (o: {
  readonly name: string
  readonly type: Account.AccountType
  readonly adminEmail: string
  readonly network: Option.Option<string>
  readonly market: Option.Option<string>
  readonly identifier: ReadonlyArray<string>
}) =>
  UseCases.provide(Effect.gen(function*() {
    const identifiers = []
    for (const raw of o.identifier) identifiers.push(yield* identifierOf(raw))
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({
      name: o.name,
      type: o.type,
      adminEmail: o.adminEmail,
      network: Option.getOrUndefined(o.network),
      market: Option.getOrUndefined(o.market),
      identifiers
    })
    yield* printJson(accountJson(account))
  }))

/**
 * `accounts limit`: `--monthly CURRENCY:AMOUNT` sets (or replaces) a limit, `--remove CURRENCY`
 * removes one; exactly one of them. Prints the account's limits after it.
 *
 * @since 0.2.0
 * @category commands
 */
export const limitAccount = (o: {
  readonly account: string
  readonly monthly: Option.Option<string>
  readonly remove: Option.Option<string>
}) =>
  UseCases.provide(Effect.gen(function*() {
    const admin = yield* Admin.Admin
    let limits: ReadonlyArray<SpendingStore.Limit>
    if (Option.isSome(o.monthly) === Option.isSome(o.remove)) {
      return yield* Errors.invalidParameter("monthly", "Give either --monthly CURRENCY:AMOUNT or --remove CURRENCY.")
    }
    if (Option.isSome(o.monthly)) {
      const [currency = "", amount = ""] = o.monthly.value.split(":")
      if (currency === "" || amount === "") {
        return yield* Errors.invalidParameter(
          "monthly",
          `--monthly ${o.monthly.value} must be CURRENCY:AMOUNT, e.g. AUD:500.00.`
        )
      }
      limits = yield* admin.setSpendingLimit({ accountId: o.account, currency, monthly: amount })
    } else limits = yield* admin.removeSpendingLimit(o.account, Option.getOrThrow(o.remove))
    yield* printJson({
      account_id: o.account,
      limits: limits.map((l) => ({ currency: l.currency, monthly: Spending.fromUnits(l.monthly) }))
    })
  }))

/**
 * `keys create`: `permissions` comma-separated, `expiresAt` an RFC 3339 date-time or a date.
 *
 * @since 0.1.0
 * @category commands
 */
export const createKey = (o: {
  readonly account: string
  readonly permissions: string
  readonly expiresAt: Option.Option<string>
}) =>
  UseCases.provide(Effect.gen(function*() {
    const permissions: Array<Permission.Permission> = []
    for (const p of o.permissions.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
      if (!Schema.is(Permission.Permission)(p)) {
        return yield* Errors.invalidParameter(
          "permissions",
          `Unknown permission ${p}; known: ${Permission.all.join(", ")}.`
        )
      }
      permissions.push(p)
    }
    let expiresAt: number | undefined
    if (Option.isSome(o.expiresAt)) {
      const parsed = Timestamp.parseDateFilter(o.expiresAt.value, false)
      if (Option.isNone(parsed)) {
        return yield* Errors.invalidParameter(
          "expires-at",
          "--expires-at must be an RFC 3339 date-time, or a date (YYYY-MM-DD: its first instant, UTC)."
        )
      }
      expiresAt = parsed.value
    }
    const admin = yield* Admin.Admin
    yield* printJson(keyJson(yield* admin.createKey({ accountId: o.account, permissions, expiresAt })))
  }))

/**
 * `keys revoke KEY_ID`.
 *
 * @since 0.1.0
 * @category commands
 */
export const revokeKey = (id: string) =>
  UseCases.provide(Effect.gen(function*() {
    yield* (yield* Admin.Admin).revokeKey(id)
    yield* printJson({ id, revoked: true })
  }))

/**
 * `sids import`: records a Sender ID registered elsewhere as `registered` for the account, held
 * for the legal identifier `identifier` (`TYPE:VALUE`).
 *
 * @since 0.1.0
 * @category commands
 */
export const importSid = (o: {
  readonly account: string
  readonly senderId: string
  readonly market: string
  readonly identifier: string
  readonly brandName: string
}) =>
  UseCases.provide(Effect.gen(function*() {
    const record = yield* (yield* Admin.Admin).importSenderId({
      accountId: o.account,
      senderId: o.senderId,
      market: o.market,
      identifier: yield* identifierOf(o.identifier),
      brandName: o.brandName
    })
    yield* printJson({
      id: record.id,
      account_id: record.accountId,
      sender_id: record.senderId,
      market: record.market,
      brand_name: record.brandName,
      identifier_type: record.identifierType,
      identifier_value: record.identifierValue,
      status: record.status,
      created_at: Timestamp.format(record.createdAt),
      registered_at: record.registeredAt === undefined ? null : Timestamp.format(record.registeredAt),
      expires_at: record.expiresAt === undefined ? null : Timestamp.format(record.expiresAt)
    })
  }))

/**
 * `opt-outs import`: the numbers of a CSV file (the first column; a header and blank lines
 * ignored) added to the account's opt-out list as the API's import adds them, read as the file
 * streams; prints `{imported, already_listed, invalid}`.
 *
 * @since 0.2.0
 * @category commands
 */
export const importOptOuts = (o: { readonly account: string; readonly file: string }) =>
  UseCases.provide(Effect.gen(function*() {
    const csv = Stream.decodeText(NodeStream.fromReadable(
      () => createReadStream(o.file),
      (cause) =>
        new Errors.InvalidRequest({
          code: "invalid_request",
          message: `Cannot read ${o.file}: ${String((cause as Error).message ?? cause)}`
        })
    ))
    const result = yield* (yield* Admin.Admin).importOptOuts(o.account, csv)
    yield* printJson({ imported: result.imported, already_listed: result.alreadyListed, invalid: result.invalid })
  }))
