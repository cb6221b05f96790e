/**
 * The typed client of Sendline's `/v1` API: `HttpApiClient` over `@sendline/api`'s definition, the
 * API key as the bearer token of every request. Each endpoint is a method of its group
 * (`client.messages.send({ payload })`), answering the decoded envelope; a refusal fails with
 * CONTRACT's error of its code (`RuleViolation`, `NotFound`, … of `Errors`, each with its `code`),
 * to be caught by its tag. It needs an `HttpClient`: `FetchHttpClient.layer` from
 * `@effect/platform`, or any other.
 *
 * @since 0.2.0
 */
import { type HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Api } from "@sendline/api/Api"
import { Config, type ConfigError, Context, Effect, Layer, type Redacted } from "effect"

/** Where the server is, and the API key (`sk_…`) to call it with. @since 0.2.0 @category models */
export interface Options {
  /** The server's address, e.g. `http://127.0.0.1:3000` (the `/v1` prefix is the API's). */
  readonly baseUrl: string | URL
  /** The API key, sent as `Authorization: Bearer …`; `Redacted` keeps it out of logs. */
  readonly apiKey: string | Redacted.Redacted<string>
}

/** The groups of the API, and the errors every endpoint may fail with. */
type Groups = typeof Api extends HttpApi.HttpApi<string, infer Groups, infer _E, infer _R> ? Groups : never
type ApiError = typeof Api extends HttpApi.HttpApi<string, infer _G, infer E, infer _R> ? E : never

/** The `/v1` API's methods, by group (`messages`, `brands`, `sids`, `webhooks`, `events`, …). @since 0.2.0 @category models */
export interface Client extends HttpApiClient.Client<Groups, ApiError, never> {}

/** The client, as a service. @since 0.2.0 @category tags */
export class SendlineClient extends Context.Tag("@sendline/client/SendlineClient")<SendlineClient, Client>() {}

/** Makes the client for `options`; every call goes through the `HttpClient` of the context. @since 0.2.0 @category constructors */
export const make = (options: Options): Effect.Effect<Client, never, HttpClient.HttpClient> =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.apiKey))
  })

/** The client for `options`, as a layer. @since 0.2.0 @category layers */
export const layer = (options: Options): Layer.Layer<SendlineClient, never, HttpClient.HttpClient> =>
  Layer.effect(SendlineClient, make(options))

/** The options from the environment: `SENDLINE_URL`, and `SENDLINE_API_KEY` (redacted). @since 0.2.0 @category config */
export const config: Config.Config<Options> = Config.all({
  baseUrl: Config.string("SENDLINE_URL"),
  apiKey: Config.redacted("SENDLINE_API_KEY")
})

/** The client for options read from configuration, by default `config` (`SENDLINE_URL`, `SENDLINE_API_KEY`). @since 0.2.0 @category layers */
export const layerConfig = (
  options: Config.Config.Wrap<Options> = config
): Layer.Layer<SendlineClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.effect(SendlineClient, Effect.flatMap(Config.unwrap(options), make))
