/**
 * The client against a real HTTP server on a local port that answers every call with the error
 * envelope of one code: each code of CONTRACT §8 that an error class carries comes back as that
 * class, by its tag, with its code, message and field; the edge's codes (405, 413, 415, 500), which
 * no endpoint declares, fail as a response error. And the key goes as the bearer token.
 */
import { FetchHttpClient } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { ErrorCodes } from "@sendline/api"
import { Errors, SendlineClient } from "@sendline/client"
import { Effect, Redacted } from "effect"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** A server on a free local port answering each request with `code`'s error envelope, noting the request's headers; closed with the scope. */
const envelopeServer = (code: string, seen: Array<IncomingHttpHeaders>) =>
  Effect.acquireRelease(
    Effect.async<Server>((resume) => {
      const server = createServer((request, response) => {
        seen.push(request.headers)
        request.resume()
        request.on("end", () => {
          response.writeHead(ErrorCodes.status(code as ErrorCodes.Code), { "content-type": "application/json" })
          response.end(JSON.stringify({
            ok: false,
            error: { code, message: `Refused: ${code}.`, field: "sender_id" },
            meta: { request_id: "req_test", timestamp: "2026-11-22T07:00:00.000+00:00" }
          }))
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const send = (baseUrl: string, apiKey: string | Redacted.Redacted<string>) =>
  Effect.flatMap(
    SendlineClient.make({ baseUrl, apiKey }),
    (client) => client.messages.send({ payload: { to: "+61412345678", sender_id: "Acme", body: "Hi", market: "AU" } })
  ).pipe(Effect.flip, Effect.provide(FetchHttpClient.layer))

/** The error class each status decodes to (CONTRACT §8). */
const classOf: Record<number, new(...args: ReadonlyArray<any>) => Errors.SendlineError> = {
  400: Errors.InvalidRequest,
  401: Errors.Unauthenticated,
  403: Errors.PermissionDenied,
  404: Errors.NotFound,
  409: Errors.Conflict,
  422: Errors.RuleViolation,
  429: Errors.RateLimited,
  503: Errors.StoreUnavailable
}
const edgeCodes: ReadonlyArray<string> = [
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error"
]

describe("SendlineClient", () => {
  for (const code of Object.keys(ErrorCodes.table).filter((code) => !edgeCodes.includes(code))) {
    it.scoped(`${ErrorCodes.status(code as ErrorCodes.Code)} ${code}: fails with its error class, by its tag, with its code`, () =>
      Effect.gen(function*() {
        const seen: Array<IncomingHttpHeaders> = []
        const url = yield* envelopeServer(code, seen)
        const error = yield* send(url, Redacted.make("sk_test"))
        const expected = classOf[ErrorCodes.status(code as ErrorCodes.Code)]!
        assert.instanceOf(error, expected)
        assert.isTrue(Errors.isSendlineError(error))
        const refused = error as Errors.SendlineError
        assert.strictEqual(refused._tag, expected.name)
        assert.strictEqual(refused.code, code)
        assert.strictEqual(refused.message, `Refused: ${code}.`)
        if (refused._tag === "RuleViolation" || refused._tag === "InvalidRequest") {
          assert.strictEqual(refused.field, "sender_id")
        }
        assert.strictEqual(seen[0]?.authorization, "Bearer sk_test")
      }))
  }

  for (const code of edgeCodes) {
    it.scoped(`${ErrorCodes.status(code as ErrorCodes.Code)} ${code}: no endpoint declares it, so a response error`, () =>
      Effect.gen(function*() {
        const url = yield* envelopeServer(code, [])
        const error = yield* send(url, "sk_test")
        assert.isFalse(Errors.isSendlineError(error))
        assert.strictEqual(error._tag, "ResponseError")
      }))
  }
})
