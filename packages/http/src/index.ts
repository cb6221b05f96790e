/**
 * Sendline's `/v1` HTTP server: the API definition, its handlers and middleware, and the CLI. One
 * folder per API group (`messages/`, `health/`), the envelope and error rendering in `envelope/`,
 * the request pipeline in `middleware/`, start-up and configuration in `server/`.
 *
 * @since 0.1.0
 */
export * as Api from "./Api.js"
export * as Envelope from "./envelope/Envelope.js"
export * as ErrorCodes from "./envelope/ErrorCodes.js"
export * as ErrorResponse from "./envelope/ErrorResponse.js"
export * as MessagesJson from "./messaging/MessagesJson.js"
export * as Middleware from "./middleware/Middleware.js"
export * as Pipeline from "./middleware/Pipeline.js"
export * as RateLimiter from "./middleware/RateLimiter.js"
export * as RequestBody from "./middleware/RequestBody.js"
export * as Cli from "./server/Cli.js"
export * as Config from "./server/Config.js"
export * as Server from "./server/Server.js"
export * as Store from "./server/Store.js"
