/**
 * Requests to the test server over raw `fetch`, keeping each reply's status, headers and bytes.
 * Every reply is checked against the OpenAPI document (`ResponseValidator`): an undocumented status
 * or a body off its schema fails the test that made the request.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import * as ResponseValidator from "./ResponseValidator.js"
import { TestServer } from "./TestServer.js"

/** What came back: status, headers, the raw body and its JSON (undefined when not JSON). */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

/** How to send a request. */
export interface RequestOptions {
  /** The API key; defaults to the main caller's; `null` sends no `Authorization` header. */
  readonly key?: string | null | undefined
  /** A value sent as JSON with `Content-Type: application/json`. */
  readonly json?: unknown
  /** A raw body, text or bytes (no content type unless given in `headers`). */
  readonly body?: string | Uint8Array
  readonly headers?: Record<string, string>
}

/** Sends one request to the server and reads the whole reply, which the OpenAPI document must describe. */
export const request = (
  method: string,
  path: string,
  options: RequestOptions = {}
): Effect.Effect<Reply, never, TestServer> =>
  Effect.flatMap(TestServer, (server) =>
    Effect.promise(async () => {
      const headers: Record<string, string> = {}
      const key = options.key === undefined ? server.main.key : options.key
      if (key !== null) headers.authorization = `Bearer ${key}`
      let body: string | Uint8Array | undefined = options.body
      if (options.json !== undefined) {
        headers["content-type"] = "application/json"
        body = JSON.stringify(options.json)
      }
      const response = await fetch(server.url + path, {
        method,
        headers: { ...headers, ...options.headers },
        ...(body === undefined ? {} : { body })
      })
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      const reply = { status: response.status, headers: response.headers, text, json }
      assertDocumented(method, path, reply)
      return reply
    }))

/**
 * Fails the test unless `reply` is documented: its status listed for the operation answering
 * `method path` and its JSON body matching that status's schema (a path the document does not
 * describe, such as `/docs`, is not checked).
 */
const assertDocumented = (method: string, path: string, reply: Reply): void => {
  const validator = ResponseValidator.served()
  const problems = validator.check(method, path, reply)
  if (problems === undefined) return
  ResponseValidator.record(
    `${problems.length === 0 ? "ok" : "mismatch"} ${validator.operationOf(method, path)!.name} ${reply.status}`
  )
  assert.deepStrictEqual(
    problems,
    [],
    `${method} ${path} answered ${reply.status}, not as the OpenAPI document says: ${reply.text.slice(0, 500)}`
  )
}
