/**
 * The `sendline` command line (CONTRACT §10): its commands, their options and their help. Every
 * command that creates something prints one JSON object on stdout; errors go to stderr with a
 * non-zero exit.
 *
 * This module loads only `effect`, `@effect/cli` and the account types: each command's
 * implementation (`cli/Serve`, `cli/Migrate`, `cli/Admin`, and through them the core, the stores
 * and the HTTP server) is imported when that command runs, so that `sendline --help` and a usage
 * error answer at once.
 *
 * @since 0.1.0
 */
import { Args, Command, Options } from "@effect/cli"
import * as Account from "@sendline/core/accounts/Account"
import { Console, Effect } from "effect"
import { version } from "../envelope/Version.js"

/** Runs `run` on the module `load` imports, loaded when the command runs, never before. */
const lazily = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(load), run)

const demo = Options.boolean("demo").pipe(
  Options.withDescription("Create the demo organisation, Brand Owner and operators once and print new demo keys")
)

const serve = Command.make(
  "serve",
  { demo },
  ({ demo }) => lazily(() => import("./cli/Serve.js"), (Serve) => Serve.serve({ demo }))
).pipe(
  Command.withDescription("Migrate, then serve /v1 (with --demo: create demo data and print a key)")
)

const migrate = Command.make(
  "migrate",
  {},
  () => lazily(() => import("./cli/Migrate.js"), (Migrate) => Migrate.migrate)
).pipe(
  Command.withDescription("Create or update the database schema")
)

/** A text option shown as `--name PLACEHOLDER`, described. */
const text = (name: string, placeholder: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(placeholder), Options.withDescription(description))

/** An option naming an account by id. */
const accountOption = text("account", "ACCOUNT_ID", "The account's id, acct_…")

const createAccount = Command.make("create", {
  name: text("name", "NAME", "The account's name"),
  type: Options.choice("type", Account.AccountType.literals).pipe(Options.withDescription("What the account is")),
  adminEmail: text("admin-email", "EMAIL", "Where the account's administrator is written to"),
  network: Options.optional(text("network", "NETWORK", "An operator's network, e.g. telstra (operators only)")),
  market: Options.optional(text("market", "MARKET", "An operator's market, e.g. AU (operators only)")),
  identifier: text(
    "identifier",
    "TYPE:VALUE",
    "A legal identifier the brand account owns: ABN, ACN, NZBN, UEN or CRN, checked as a brand's (spaces ignored), owned by no other account"
  ).pipe(Options.repeated, Options.withDefault([]))
}, (options) => lazily(() => import("./cli/Admin.js"), (Admin) => Admin.createAccount(options))).pipe(
  Command.withDescription("Create an account (organisation) and print it")
)

const limitAccount = Command.make("limit", {
  account: accountOption,
  monthly: Options.optional(
    text("monthly", "CURRENCY:AMOUNT", "Set (or replace) the monthly spending limit in a currency, e.g. AUD:500.00")
  ),
  remove: Options.optional(text("remove", "CURRENCY", "Remove the monthly spending limit in a currency, e.g. AUD"))
}, (options) => lazily(() => import("./cli/Admin.js"), (Admin) => Admin.limitAccount(options))).pipe(
  Command.withDescription("Set or remove an account's monthly spending limit and print its limits")
)

const createKey = Command.make("create", {
  account: accountOption,
  permissions: text("permissions", "LIST", "Comma-separated, e.g. messaging:send,messaging:read"),
  expiresAt: Options.optional(
    text("expires-at", "TIME", "When the key stops working: an RFC 3339 date-time, or a date (its first instant, UTC)")
  )
}, (options) => lazily(() => import("./cli/Admin.js"), (Admin) => Admin.createKey(options))).pipe(
  Command.withDescription("Create an API key; its secret is printed once")
)

const revokeKey = Command.make("revoke", {
  id: Args.text({ name: "KEY_ID" }).pipe(Args.withDescription("The key's id, key_…"))
}, ({ id }) => lazily(() => import("./cli/Admin.js"), (Admin) => Admin.revokeKey(id))).pipe(
  Command.withDescription("Revoke an API key")
)

const importSid = Command.make("import", {
  account: accountOption,
  senderId: text("sender-id", "SENDER_ID", "1–11 letters, digits or spaces, with a letter"),
  market: text("market", "MARKET", "The market it is registered in, e.g. AU"),
  identifier: text(
    "identifier",
    "TYPE:VALUE",
    "The legal identifier of the brand it is registered to, of a type the market takes (e.g. ABN:51824753556): what holds it in the market"
  ),
  brandName: text("brand-name", "NAME", "The brand's name, shown with it (never compared)")
}, (options) => lazily(() => import("./cli/Admin.js"), (Admin) => Admin.importSid(options))).pipe(
  Command.withDescription("Record a Sender ID registered elsewhere as registered")
)

const importOptOuts = Command.make("import", {
  account: accountOption,
  file: Args.text({ name: "FILE" }).pipe(
    Args.withDescription("A CSV file: a number in the first column of each line; a header and blank lines ignored")
  )
}, (options) => lazily(() => import("./cli/Admin.js"), (Admin) => Admin.importOptOuts(options))).pipe(
  Command.withDescription("Add the numbers of a CSV file to an account's opt-out list")
)

const checkRoutes = Command.make("check", {
  file: Args.text({ name: "FILE" }).pipe(
    Args.withDescription("The routes file (default: ROUTES_FILE; unset, what the server routes by)"),
    Args.optional
  ),
  to: Options.optional(text("to", "NUMBER", "A message's recipient, E.164: show the route it takes")),
  senderId: Options.optional(text("sender-id", "SENDER_ID", "The message's Sender ID")),
  market: Options.optional(text("market", "MARKET", "The message's market, e.g. AU"))
}, (options) => lazily(() => import("./cli/RoutesCheck.js"), (RoutesCheck) => RoutesCheck.check(options))).pipe(
  Command.withDescription(
    "Check a routes file: carriers, routes in match order, a message's route (connects to nothing)"
  )
)

// A group run without its command did nothing: a usage error, on stderr with exit 1 (the
// executable leads it with "sendline: invalid_request:", as every usage error).
const noCommand = (group: string, commands: ReadonlyArray<string>) =>
  Effect.zipRight(
    Console.error(`${group} needs a command: ${commands.join(", ")} (${group} --help says more).`),
    Effect.sync(() => (process.exitCode = 1))
  )

/** The `sendline` command with its subcommands. @since 0.1.0 @category commands */
export const command = Command.make(
  "sendline",
  {},
  () => noCommand("sendline", ["serve", "migrate", "routes", "accounts", "keys", "sids", "opt-outs"])
).pipe(
  Command.withDescription("Embeddable outbound SMS through registered Sender IDs: serve the API, administer it"),
  Command.withSubcommands([
    serve,
    migrate,
    Command.make("routes", {}, () => noCommand("sendline routes", ["check"])).pipe(
      Command.withDescription("Check the carriers and routes of a routes file (ROUTES_FILE)"),
      Command.withSubcommands([checkRoutes])
    ),
    Command.make("accounts", {}, () => noCommand("sendline accounts", ["create", "limit"])).pipe(
      Command.withDescription("Create accounts (organisations) and set their spending limits"),
      Command.withSubcommands([createAccount, limitAccount])
    ),
    Command.make("keys", {}, () => noCommand("sendline keys", ["create", "revoke"])).pipe(
      Command.withDescription("Create and revoke API keys"),
      Command.withSubcommands([createKey, revokeKey])
    ),
    Command.make("sids", {}, () => noCommand("sendline sids", ["import"])).pipe(
      Command.withDescription("Record Sender IDs registered elsewhere"),
      Command.withSubcommands([importSid])
    ),
    Command.make("opt-outs", {}, () => noCommand("sendline opt-outs", ["import"])).pipe(
      Command.withDescription("Administer accounts' opt-out lists"),
      Command.withSubcommands([importOptOuts])
    )
  ])
)

/** Runs the command line on the whole `process.argv`. @since 0.1.0 @category running */
export const run = Command.run(command, { name: "sendline", version })
