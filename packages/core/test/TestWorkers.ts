/**
 * The core's use cases and its three message workers over SQLite `:memory:` and the carrier mock.
 * Provided per test (`Effect.provide`), so that each test has its own database, carrier and clock.
 */
import { CarrierMock } from "@sendline/carrier-mock"
import { EventStore, type Message, MessageStore, Workers } from "@sendline/core"
import { CapturingMailer, CapturingTransport } from "@sendline/core/testing"
import { Chunk, Clock, Duration, Effect, Layer, Option, TestClock } from "effect"
import * as TestCore from "./TestCore.js"
import type * as TestStores from "./TestStores.js"

/** What a test may set on its carrier mock and workers. */
export interface LayerOptions {
  readonly carrier?: CarrierMock.Options
  readonly workers?: Workers.Options
}

/** Workers not started (tests call `runOnce`), the carrier mock, a capturing mailer and the use cases over a fresh `store`. */
export const layer = (options: LayerOptions = {}, store: TestStores.TestStore) =>
  Workers.layerServices(options.workers).pipe(
    Layer.provideMerge(
      Layer.mergeAll(CarrierMock.layer(options.carrier), CapturingMailer.layer, CapturingTransport.layer)
    ),
    Layer.provideMerge(TestCore.layerOn(store.layer()))
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
export const eventTypes = (message: Message.Message) => Effect.map(events(message), (all) => all.map((e) => e.type))

/** The message's events, oldest first. */
export const events = (message: Message.Message) =>
  Effect.flatMap(EventStore.EventStore, (store) => store.listBySubject(message.accountId, message.id))

/** The carrier journal's decisions for one message. */
export const decisions = (message: Message.Message) =>
  Effect.map(
    Effect.flatMap(CarrierMock.CarrierMock, (mock) => mock.journal),
    (journal) => journal.filter((e) => e.reference === message.id).map((e) => e.decision)
  )

const eventLoopTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
const restAMillisecond = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 1)))

/**
 * How long `eventually` waits, in real time, for what the workers do on a store with real I/O: far
 * more than a loaded machine needs. (It counted 5,000 event loop turns, which spin by in well under
 * a second while a loaded PostgreSQL has not answered yet: a run beside `stress --cpu 2` failed so.)
 */
const patienceMillis = 30_000

/**
 * Waits until `check` holds, giving the event loop turns between tries, for at most
 * `patienceMillis` of real time: workers running in the background on a store with real I/O
 * (PostgreSQL) finish their pass after `TestClock.adjust` returns. The TestClock does not move
 * meanwhile, so this is no sleep of the code under test.
 */
export const eventually = <E, R>(what: string, check: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + patienceMillis
    for (let tries = 0;; tries++) {
      if (yield* check) return
      if (Date.now() > deadline) return yield* Effect.dieMessage(`never came true within ${patienceMillis} ms: ${what}`)
      // a few turns first (a pass in memory ends within them), then a millisecond's rest, not a spin
      yield* tries < 100 ? eventLoopTurn : restAMillisecond
    }
  })

/** Whether `message` has the status `status` (for `eventually`). */
export const hasStatus = (message: Message.Message, status: Message.MessageStatus) =>
  Effect.map(load(message), (m) => m.status === status)

/**
 * Whether some fiber sleeps until `millis` from now on the TestClock: how a test sees that a
 * worker has claimed a message and is inside a carrier submission that takes that long, without
 * touching the message's row (a probe claim would race the worker under SKIP LOCKED).
 */
export const sleepingFor = (millis: number) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return Chunk.some(yield* TestClock.sleeps(), (until) => until === now + millis)
  })

/**
 * Whether some fiber sleeps past now on the TestClock, until at most `pollMillis` from now: a
 * worker's loop that has finished its pass and waits for the next. Given the workers' poll, a
 * pass still running is not taken for ended by the sleep of its lease's deadline (four fifths of a
 * 30 s lease ahead), which it races against its attempts: a step then would date what the attempt
 * records (its next attempt) a step late.
 */
const someoneAsleep = (pollMillis: number) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return Chunk.some(yield* TestClock.sleeps(), (until) => until > now && until <= now + pollMillis)
  })

/** How the clock is moved: in `step`s, the workers' loops sleeping at most `poll` between passes. */
export interface Stepping {
  readonly step?: Duration.DurationInput
  /** The longest poll of the workers running (default: any sleep past now counts as a loop's). */
  readonly poll?: Duration.DurationInput
}

const pollMillisOf = (stepping: Stepping) =>
  stepping.poll === undefined ? Number.POSITIVE_INFINITY : Duration.toMillis(stepping.poll)

/**
 * Moves the TestClock on by `total` in `step`s, each once the workers' passes have ended (some
 * fiber sleeps again: their loops' next poll), so that no pass reads a time the clock has already
 * left: a jump taken while a pass on PostgreSQL is still running pushes its next poll, and the
 * due work with it, past the instant the test means.
 */
export const advanceBy = (total: Duration.DurationInput, stepping: Stepping = {}) =>
  Effect.gen(function*() {
    const step = stepping.step ?? "1 second"
    const steps = Math.round(Duration.toMillis(total) / Duration.toMillis(step))
    for (let i = 0; i < steps; i++) {
      yield* TestClock.adjust(step)
      yield* eventually("the workers' passes end", someoneAsleep(pollMillisOf(stepping)))
    }
  })

/**
 * Moves the TestClock on in `step`s until `check` holds (at most `steps` of them), letting the
 * workers finish their passes between steps. One long jump can fold several polls into one on a
 * store with real I/O: a pass woken early in the jump reads an earlier time and then sleeps past
 * the due work.
 */
export const advanceUntil = <E, R>(
  what: string,
  check: Effect.Effect<boolean, E, R>,
  stepping: Stepping = {},
  steps = 10
) =>
  Effect.gen(function*() {
    const step = stepping.step ?? "1 second"
    for (let i = 0; i <= steps; i++) {
      for (let turn = 0; turn < 200; turn++) {
        if (yield* check) return
        yield* eventLoopTurn
      }
      // a step taken while a pass is still running on a loaded PostgreSQL would skip a due time
      yield* eventually("the workers' passes end", someoneAsleep(pollMillisOf(stepping)))
      if (yield* check) return
      yield* TestClock.adjust(step)
    }
    return yield* Effect.dieMessage(`never came true within ${steps} steps of ${Duration.format(step)}: ${what}`)
  })
