/**
 * The core's use cases and its three message workers over SQLite `:memory:` and the carrier mock.
 * Provided per test (`Effect.provide`), so that each test has its own database, carrier and clock.
 */
import { CarrierMock } from "@sendline/carrier-mock"
import { EventStore, Message, MessageStore, Workers } from "@sendline/core"
import { Effect, Layer, Option } from "effect"
import * as TestCore from "./TestCore.js"

/** Workers not started (tests call `runOnce`), the carrier mock and the use cases over a fresh store. */
export const layer = (options: { readonly carrier?: CarrierMock.Options; readonly workers?: Workers.Options } = {}) =>
  Workers.layerServices(options.workers).pipe(
    Layer.provideMerge(CarrierMock.layer(options.carrier)),
    Layer.provideMerge(TestCore.layer)
  )

/** An AU mobile number ending in `suffix` (the mock's rules go by the last four digits). */
export const to = (suffix: string) => `+6141234${suffix}`

/** The stored message, which must exist. */
export const load = (message: Message.Message) =>
  Effect.map(
    Effect.flatMap(MessageStore.MessageStore, (store) => store.findById(message.accountId, message.id)),
    Option.getOrThrow
  )

/** The types of the message's events, oldest first. */
export const eventTypes = (message: Message.Message) =>
  Effect.map(events(message), (all) => all.map((e) => e.type))

/** The message's events, oldest first. */
export const events = (message: Message.Message) =>
  Effect.flatMap(EventStore.EventStore, (store) => store.listBySubject(message.accountId, message.id))

/** The carrier journal's decisions for one message. */
export const decisions = (message: Message.Message) =>
  Effect.map(
    Effect.flatMap(CarrierMock.CarrierMock, (mock) => mock.journal),
    (journal) => journal.filter((e) => e.reference === message.id).map((e) => e.decision)
  )
