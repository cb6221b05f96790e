/**
 * Sendline's `/v1` HTTP server: the API definition, its handlers and middleware, and the CLI.
 *
 * @since 0.1.0
 */
export * as Api from "./Api.js"
export * as Cli from "./Cli.js"
export * as Config from "./Config.js"
export * as ErrorResponse from "./ErrorResponse.js"
export * as Json from "./Json.js"
export * as Middleware from "./Middleware.js"
export * as RateLimiter from "./RateLimiter.js"
export * as RequestBody from "./RequestBody.js"
export * as Server from "./Server.js"
export * as Store from "./Store.js"
