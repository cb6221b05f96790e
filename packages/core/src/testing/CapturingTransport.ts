/**
 * A `WebhookTransport` for tests: keeps every request it is given, with the Clock time it came,
 * and answers as the test says (a 200 at first), so that a test reads what was sent, signed how,
 * when, and drives the deliverer's retries without a network.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Ref } from "effect"
import type { TransportFailure, WebhookRequest, WebhookResponse } from "../webhooks/WebhookTransport.js"
import { WebhookTransport } from "../webhooks/WebhookTransport.js"

/** A request as the transport got it, and when (Clock time). @since 0.1.0 @category models */
export interface Captured extends WebhookRequest {
  readonly at: number
}

/** How the transport answers a request. @since 0.1.0 @category models */
export type Answer = (request: WebhookRequest) => Effect.Effect<WebhookResponse, TransportFailure>

/** Answers every request with `status` and `body`, at once. @since 0.1.0 @category answers */
export const status = (code: number, body = ""): Answer => () =>
  Effect.succeed({ status: code, durationMillis: 0, body })

/** The test's view of the capturing transport. @since 0.1.0 @category services */
export class CapturingTransport extends Context.Tag("@sendline/core/testing/CapturingTransport")<CapturingTransport, {
  /** The requests it got, in the order it got them. */
  readonly requests: Effect.Effect<ReadonlyArray<Captured>>
  /** How it answers from now on. */
  readonly answerWith: (answer: Answer) => Effect.Effect<void>
}>() {}

/** A `WebhookTransport` that captures, and its `CapturingTransport` view; answers 200 at first. @since 0.1.0 @category layers */
export const layer: Layer.Layer<WebhookTransport | CapturingTransport> = Layer.effectContext(Effect.gen(function*() {
  const requests = yield* Ref.make<ReadonlyArray<Captured>>([])
  const answer = yield* Ref.make<Answer>(status(200, "ok"))
  const post = (request: WebhookRequest) =>
    Effect.flatMap(
      Clock.currentTimeMillis,
      (at) =>
        Effect.zipRight(
          Ref.update(requests, (all) => [...all, { ...request, at }]),
          Effect.flatMap(Ref.get(answer), (f) => f(request))
        )
    )
  return Context.make(WebhookTransport, WebhookTransport.of({ post })).pipe(
    Context.add(
      CapturingTransport,
      CapturingTransport.of({ requests: Ref.get(requests), answerWith: (f) => Ref.set(answer, f) })
    )
  )
}))
