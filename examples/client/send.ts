/**
 * Sendline's typed client, as a program of your own: it sends an SMS as the demo organisation of
 * `sendline serve --demo` (Sender ID `Sendline`, market `AU`), prints the message's id and status,
 * then sends from a Sender ID that is not registered and handles the refusal by its tag
 * (`RuleViolation`, code `sender_id_not_registered`). Run against a server:
 *
 *   SENDLINE_URL=http://127.0.0.1:3000 SENDLINE_API_KEY=sk_… node send.js
 *
 * It imports `@sendline/client`, `@effect/platform` and `effect` only.
 */
import { FetchHttpClient } from "@effect/platform"
import { SendlineClient } from "@sendline/client"
import { Console, Effect, Layer } from "effect"

/** What the program saw: the message sent, and the code the refused one was refused with. */
interface Outcome {
  readonly id: string
  readonly status: string
  readonly refused: string
}

const message = { to: "+61412345678", body: "Your Sendline code is 123456", market: "AU" }

/** Sends one message from `Sendline`, then one from `Nobody`, refused and handled by its tag. */
export const program = Effect.gen(function*() {
  const client = yield* SendlineClient.SendlineClient

  // POST /v1/messaging/messages: 201 with the message, queued for the carrier.
  const sent = yield* client.messages.send({ payload: { ...message, sender_id: "Sendline" } })
  yield* Console.log(`Sent ${sent.data.id}: ${sent.data.status}`)

  // A refusal fails with CONTRACT's error of its code: catch it by its tag, read its code.
  const refused = yield* client.messages.send({ payload: { ...message, sender_id: "Nobody" } }).pipe(
    Effect.as("not refused"),
    Effect.catchTag(
      "RuleViolation",
      (error) => Effect.as(Console.log(`Refused (${error._tag}): ${error.code}: ${error.message}`), error.code)
    )
  )
  const outcome: Outcome = { id: sent.data.id, status: sent.data.status, refused }
  return outcome
})

/** The program against `SENDLINE_URL` with `SENDLINE_API_KEY`, over `fetch`. */
const main = program.pipe(
  Effect.provide(SendlineClient.layerConfig().pipe(Layer.provide(FetchHttpClient.layer)))
)

// Run as a script (`node send.js`), not when imported (its test runs `program` itself).
const script = process.argv[1]
if (script !== undefined && new URL(import.meta.url).pathname === new URL(script, "file://").pathname) {
  Effect.runPromise(main).then(
    () => {
      process.exitCode = 0
    },
    (error: unknown) => {
      console.error(error)
      process.exitCode = 1
    }
  )
}
