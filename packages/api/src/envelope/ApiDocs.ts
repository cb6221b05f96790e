/**
 * What the OpenAPI document says of the conventions every endpoint shares, derived from the code:
 * each error status answers with the error envelope and names its codes (`ErrorCodes`); a body may
 * be too large (413) or of another media type (415), even on a POST that reads none, and unknown
 * fields in it are ignored; every POST takes an `Idempotency-Key`.
 *
 * @since 0.1.0
 */
import * as ErrorCodes from "./ErrorCodes.js"

/** The description of an error status: its codes and what each means. */
const describe = (status: number): string =>
  ErrorCodes.codesOf(status).map((code) => `${code}: ${ErrorCodes.table[code].description}.`).join(" ")

const errorResponse = (status: number) => ({
  description: describe(status),
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
})

const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Replays the first answer to a retry of the same request for 24 hours (1–255 printable characters).",
  schema: { type: "string", minLength: 1, maxLength: 255 }
}

/**
 * The OpenAPI document with every error response the error envelope, described from the error
 * table; the responses the middleware gives before any endpoint runs; and no schema that no
 * response refers to any more (the tagged errors leave as the envelope).
 *
 * @since 0.1.0
 * @category openapi
 */
export const document = (spec: Record<string, any>): Record<string, any> => {
  const schemas: Record<string, any> = spec.components.schemas
  for (const operations of Object.values<Record<string, any>>(spec.paths)) {
    for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
      for (const status of Object.keys(operation.responses)) {
        if (Number(status) >= 400) operation.responses[status] = errorResponse(Number(status))
      }
      operation.responses["500"] = errorResponse(500)
      const body: string | undefined = operation.requestBody?.content?.["application/json"]?.schema?.$ref
      // Any POST may carry a body, even one whose endpoint reads none (cancel, approve): the
      // middleware refuses one too large or not JSON before the endpoint runs.
      if (body !== undefined || method === "post") {
        operation.responses["413"] = errorResponse(413)
        operation.responses["415"] = errorResponse(415)
      }
      // CONTRACT §1: unknown body fields are ignored, not refused.
      if (body !== undefined) delete schemas[body.replace("#/components/schemas/", "")]?.additionalProperties
      if (method === "post") operation.parameters = [...(operation.parameters ?? []), idempotencyKey]
    }
  }
  const used = new Set<string>()
  const visit = (value: unknown): void => {
    for (const [, ref] of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = ref!.replace(/~1/g, "/").replace(/~0/g, "~")
      if (!used.has(name)) {
        used.add(name)
        visit(schemas[name] ?? null)
      }
    }
  }
  visit(spec.paths)
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
  return spec
}
