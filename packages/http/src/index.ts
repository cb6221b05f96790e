/**
 * Sendline's `/v1` HTTP server: it serves `@sendline/api`'s definition (re-exported here as `Api`,
 * `ErrorCodes` and `Pipeline`) with its handlers and middleware, and the CLI. One folder per API
 * group (`messaging/`, `health/`), the envelope's bodies and error rendering in `envelope/`, the
 * request pipeline in `middleware/`, start-up and configuration in `server/`.
 *
 * @since 0.1.0
 */
export * as Api from "@sendline/api/Api"
export * as ErrorCodes from "@sendline/api/envelope/ErrorCodes"
export * as Pipeline from "@sendline/api/middleware/Pipeline"
export * as Envelope from "./envelope/Envelope.js"
export * as ErrorResponse from "./envelope/ErrorResponse.js"
export * as MessagesJson from "./messaging/MessagesJson.js"
export * as Middleware from "./middleware/Middleware.js"
export * as RateLimiter from "./middleware/RateLimiter.js"
export * as RequestBody from "./middleware/RequestBody.js"
export * as Cli from "./server/Cli.js"
export * as Config from "./server/Config.js"
export * as Routing from "./server/Routing.js"
export * as Server from "./server/Server.js"
export * as Store from "./server/Store.js"
