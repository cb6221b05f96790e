/**
 * A test SMSC on 127.0.0.1, for trying routing by hand: the SMSC of `@sendline/carrier-smpp/testing`
 * as a program. It binds one account, accepts every `submit_sm`, sends a `DELIVRD` receipt for
 * each, and prints a line per bind and per message until Ctrl-C.
 *
 *     npm run smsc -w examples -- 2775 acme_sms acme-secret
 */
import { NodeRuntime } from "@effect/platform-node"
import { TestSmsc } from "@sendline/carrier-smpp/testing"
import { Console, Effect, Schedule } from "effect"

/** The SMSC's port and the one account it binds. */
export interface Account {
  readonly port: number
  readonly systemId: string
  readonly password: string
}

/** Reads `PORT SYSTEM_ID PASSWORD` (defaults: 2775, sendline, secret). */
export const accountOf = (args: ReadonlyArray<string>): Account => ({
  port: Number(args[0] ?? 2775),
  systemId: args[1] ?? "sendline",
  password: args[2] ?? "secret"
})

/** An SMSC for `account` as long as the scope, and the lines of the binds and messages since the last call. */
export const start = (account: Account) =>
  Effect.map(
    TestSmsc.start({ port: account.port, users: { [account.systemId]: account.password } }),
    (smsc) => {
      let binds = 0
      let submits = 0
      const news = (): ReadonlyArray<string> => {
        const lines = [
          ...smsc.binds.slice(binds).map((b) => `bind ${b.systemId}: ${b.accepted ? "accepted" : "refused"}`),
          ...smsc.submits.slice(submits).map((s) => `message from ${s.sourceAddr} to +${s.destinationAddr}: accepted`)
        ]
        binds = smsc.binds.length
        submits = smsc.submits.length
        return lines.map((line) => `:${smsc.port} ${line}`)
      }
      return { smsc, news }
    }
  )

/** Runs an SMSC for `account` until interrupted, printing its binds and messages every 200 ms. */
export const run = (account: Account) =>
  Effect.scoped(Effect.gen(function*() {
    const { news, smsc } = yield* start(account)
    yield* Console.log(`SMSC on 127.0.0.1:${smsc.port} for ${account.systemId} (Ctrl-C stops it)`)
    yield* Effect.suspend(() => Effect.forEach(news(), (line) => Console.log(line), { discard: true })).pipe(
      Effect.repeat(Schedule.spaced("200 millis"))
    )
  }))

if (import.meta.url === `file://${process.argv[1]}`) NodeRuntime.runMain(run(accountOf(process.argv.slice(2))))
