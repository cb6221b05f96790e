/**
 * The delivery retry schedule of CONTRACT §7 (INTERFACE.md's retry policy): the first delivery at
 * once; after a failure, retry 1 waits 30 s, retry 2 2 min, retry 3 15 min, retry 4 1 h, retry 5
 * 4 h, retry 6 24 h, each counted from the failure before it. When retry 6 fails there is no next
 * attempt: the subscription is disabled ("6 failed attempts" counts these retries).
 *
 * @since 0.1.0
 */
import { Duration, Option } from "effect"

/** The wait before each retry, retry 1 first. @since 0.1.0 @category constants */
export const delays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(30),
  Duration.minutes(2),
  Duration.minutes(15),
  Duration.hours(1),
  Duration.hours(4),
  Duration.hours(24)
]

/** The number of retries after the first delivery: six. @since 0.1.0 @category constants */
export const maxRetries = delays.length

/**
 * When the attempt after attempt `attempt` (0 the first delivery, 1–6 the retries) is due, when
 * `attempt` failed at `failedAt`; none after retry 6: the deliveries of the subscription stop.
 *
 * @since 0.1.0
 * @category schedule
 */
export const nextAttemptAt = (attempt: number, failedAt: number): Option.Option<number> =>
  Option.map(Option.fromNullable(delays[attempt]), (delay) => failedAt + Duration.toMillis(delay))
