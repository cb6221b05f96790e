/**
 * Every use case in one layer, for embedders and the server: provide a store, and optionally your
 * own markets, id generator and messaging settings. `layer` provides the defaults itself, so
 * settings given to it are not seen; to give your own, build on `layerWith`:
 *
 * ```ts
 * Services.layerWith.pipe(
 *   Layer.provideMerge(Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer({ maxSegments: 3 }))),
 *   Layer.provideMerge(SqliteStore.layerSqlite({ filename: "sendline.sqlite" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as Admin from "./Admin.js"
import type { AccountStore } from "./AccountStore.js"
import * as Auth from "./Auth.js"
import * as CachedLookups from "./CachedLookups.js"
import type { EventStore } from "./EventStore.js"
import * as Idempotency from "./Idempotency.js"
import type { IdempotencyStore } from "./IdempotencyStore.js"
import * as Ids from "./Ids.js"
import * as Markets from "./Markets.js"
import type { MessageStore } from "./MessageStore.js"
import * as Messaging from "./Messaging.js"
import * as MessagingConfig from "./MessagingConfig.js"
import type { SenderIdStore } from "./SenderIdStore.js"
import type { SubscriptionStore } from "./SubscriptionStore.js"

/** Every store port a Sendline store provides. @since 0.1.0 @category models */
export type Stores = AccountStore | MessageStore | EventStore | SenderIdStore | SubscriptionStore | IdempotencyStore

/** The use cases. @since 0.1.0 @category models */
export type UseCases = Messaging.Messaging | Auth.Auth | Admin.Admin | Idempotency.Idempotency

/**
 * The use cases over a store, with the configuration given by the caller. They read API keys and
 * registered Sender IDs through `CachedLookups` (five seconds; see there for what that means).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith: Layer.Layer<
  UseCases,
  never,
  Stores | Markets.Markets | Ids.IdGenerator | MessagingConfig.MessagingConfig
> = Layer.mergeAll(Messaging.layer, Auth.layer, Admin.layer, Idempotency.layer).pipe(
  Layer.provide(CachedLookups.layer())
)

/** The use cases over a store, with default markets, ULIDs and default settings. @since 0.1.0 @category layers */
export const layer: Layer.Layer<UseCases | Markets.Markets | Ids.IdGenerator | MessagingConfig.MessagingConfig, never, Stores> =
  Layer.provideMerge(layerWith, Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer()))
