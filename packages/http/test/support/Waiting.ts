/**
 * Waiting, in real time, for what a test cannot drive with `TestClock`: a server in another
 * process, a real socket, a log line. A test waits for the event it needs, polling for it, and
 * gives up only after `patience`: far more than a loaded 2-core machine needs, so that reaching it
 * means something is wrong, never that the machine was busy.
 */

/** How long a test waits for an event before it fails: 30 s. */
export const patience = 30_000

/**
 * How long a test waits for a `sendline serve` to listen: two patiences. It starts in about two
 * seconds on an idle machine, mostly CPU (loading its modules, migrating, the demo data), and took
 * over 20 s with the load at 10 to 16 on 2 cores. A test's own limit is 120 s (`vitest.config.ts`);
 * one that starts two servers sets six patiences.
 */
export const startupPatience = 2 * patience

/** How often `until` looks again. */
const pollMillis = 20

/**
 * Looks at `found` every 20 ms until it gives a value (anything but `undefined`), and resolves with
 * it; fails with `what` once `within` has passed without one.
 */
export const until = async <A>(
  what: string,
  found: () => A | undefined | Promise<A | undefined>,
  within = patience
): Promise<A> => {
  const deadline = Date.now() + within
  for (;;) {
    const value = await found()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${within} ms`)
    await new Promise((resolve) => setTimeout(resolve, pollMillis))
  }
}

/** `until` for a condition: resolves once `holds` is true. */
export const untilTrue = (what: string, holds: () => boolean, within = patience): Promise<void> =>
  until(what, () => (holds() ? null : undefined), within).then(() => undefined)
