/**
 * The `/v1` API, defined once: the server, the OpenAPI document and the typed client all come
 * from it. Each group lives in its own folder; this only composes them. Statuses come from the
 * error table (`envelope/ErrorCodes`). `@sendline/http` serves it; `@sendline/client` calls it.
 *
 * @since 0.1.0
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { BrandRelationshipsApi } from "./brands/BrandRelationshipsApi.js"
import { BrandsApi } from "./brands/BrandsApi.js"
import * as ApiDocs from "./envelope/ApiDocs.js"
import { ErrorEnvelope } from "./envelope/Envelope.js"
import { HealthApi } from "./health/HealthApi.js"
import { MessagesApi } from "./messaging/MessagesApi.js"
import { UsageApi } from "./messaging/UsageApi.js"
import { MetricsApi } from "./metrics/MetricsApi.js"
import { apiId } from "./middleware/Pipeline.js"
import { OptOutsApi } from "./optOuts/OptOutsApi.js"
import { OperatorRegistrationsApi } from "./senderIds/OperatorRegistrationsApi.js"
import { SenderIdsApi } from "./senderIds/SenderIdsApi.js"
import { EventsApi } from "./webhooks/EventsApi.js"
import { WebhooksApi } from "./webhooks/WebhooksApi.js"

/** The whole API. @since 0.1.0 @category api */
export class Api extends HttpApi.make(apiId)
  .add(MessagesApi)
  .add(UsageApi)
  .add(BrandsApi)
  .add(BrandRelationshipsApi)
  .add(SenderIdsApi)
  .add(OperatorRegistrationsApi)
  .add(WebhooksApi)
  .add(EventsApi)
  .add(OptOutsApi)
  .add(HealthApi)
  .add(MetricsApi)
  .annotate(HttpApi.AdditionalSchemas, [ErrorEnvelope])
  .annotate(OpenApi.Transform, ApiDocs.document)
  .annotate(OpenApi.Title, "Sendline")
  .annotate(OpenApi.Version, "1")
  .annotate(
    OpenApi.Description,
    "Outbound SMS through registered alphanumeric Sender IDs. Every /v1 request takes an API key as a bearer token; answers come in the { ok, data, meta } envelope."
  )
  .annotate(OpenApi.License, { name: "MIT", url: "https://opensource.org/license/mit" })
  .annotate(OpenApi.Servers, [{
    url: "http://127.0.0.1:3000",
    description: "The quick start's local server (sendline serve --demo)"
  }])
{}
