/**
 * Checks a reply against the OpenAPI document: its status is documented for the operation that
 * answered (matched by method and path template) and its JSON body matches that status's schema.
 * The component schemas are compiled once (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses); each
 * response schema on first use.
 */
import { OpenApi } from "@effect/platform"
import { Api } from "@sendline/api/Api"
import addFormats from "ajv-formats"
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import * as fs from "node:fs"

type Json = Record<string, any>

const base = "https://sendline.invalid/openapi.json"

/** An operation of the document: its path template as a pattern, and its responses. */
interface Operation {
  readonly name: string
  readonly pattern: RegExp
  /** How many literal segments: the most literal template wins (`/v1/webhooks/x` before `/v1/webhooks/{id}`). */
  readonly literals: number
  readonly responses: Json
}

/** Makes a validator over `document`: `check` answers the problems of one reply, empty when it is documented. */
const make = (document: Json) => {
  // Every reference made absolute, so that the response schemas compiled on their own resolve it.
  const doc: Json = JSON.parse(JSON.stringify(document).replaceAll("\"#/components/", `"${base}#/components/`))
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema({ $id: base, components: doc.components })
  const operations = new Map<string, Array<Operation>>()
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(methods)) {
      const segments = path.split("/")
      const pattern = new RegExp(
        "^" + segments.map((s) => (s.startsWith("{") ? "[^/]+" : s.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))).join("/") +
          "$"
      )
      const list = operations.get(method.toUpperCase()) ?? []
      list.push({
        name: `${method.toUpperCase()} ${path}`,
        pattern,
        literals: segments.filter((s) => !s.startsWith("{")).length,
        responses: operation.responses
      })
      operations.set(method.toUpperCase(), list)
    }
  }
  const compiled = new Map<string, ValidateFunction>()

  /** The documented operation answering `method path` (query string ignored), if any. */
  const operationOf = (method: string, path: string): Operation | undefined =>
    (operations.get(method.toUpperCase()) ?? [])
      .filter((operation) => operation.pattern.test(path.split("?")[0]!))
      .sort((a, b) => b.literals - a.literals)[0]

  /** The problems of one reply to `method path`; `undefined` when no documented operation answers that request. */
  const check = (method: string, path: string, reply: { status: number; text: string }): Array<string> | undefined => {
    const operation = operationOf(method, path)
    if (operation === undefined) return undefined
    const response = operation.responses[String(reply.status)]
    if (response === undefined) {
      return [
        `${operation.name} ${reply.status}: status not documented (documented: ${
          Object.keys(operation.responses).join(", ")
        })`
      ]
    }
    const schema = response.content?.["application/json"]?.schema
    if (schema === undefined) return []
    let body: unknown
    try {
      body = JSON.parse(reply.text)
    } catch {
      return [`${operation.name} ${reply.status}: body is not JSON: ${reply.text.slice(0, 200)}`]
    }
    const key = `${operation.name} ${reply.status}`
    let validate = compiled.get(key)
    if (validate === undefined) {
      validate = ajv.compile(schema)
      compiled.set(key, validate)
    }
    if (validate(body)) return []
    return (validate.errors ?? []).map((e) =>
      `${key}: ${e.instancePath || "/"} ${e.message}${
        Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ""
      }`
    )
  }
  return { check, operationOf }
}

let shared: ReturnType<typeof make> | undefined

/** The validator over the document `GET /v1/openapi.json` serves (`OpenApi.fromApi(Api)`), made once per test file. */
export const served = (): ReturnType<typeof make> => (shared ??= make(OpenApi.fromApi(Api)))

/**
 * Notes one validated reply in the file named by `SENDLINE_RESPONSE_LOG`, when set: how the suite's
 * coverage of the document is counted.
 */
export const record = (line: string): void => {
  const file = process.env.SENDLINE_RESPONSE_LOG
  if (file !== undefined && file !== "") fs.appendFileSync(file, line + "\n")
}
