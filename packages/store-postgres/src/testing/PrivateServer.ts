/**
 * A PostgreSQL server of a test's own, which the test may stop and start again: a cluster made by
 * `initdb` in a temporary directory, listening on 127.0.0.1 at a free port with its socket in that
 * directory, never the shared test server. Needs PostgreSQL's server programs (`PG_BIN`, else the
 * newest `/usr/lib/postgresql/<version>/bin`); run as root, they run as the `postgres` user, since
 * `initdb` refuses root.
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Console, Context, Effect, Layer, Option } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A running server of the test's own. @since 0.1.0 @category models */
export interface Server {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** Stops it (fast shutdown: open connections are closed) and waits until it has. */
  readonly stop: Effect.Effect<void, Error>
  /** Starts it again and waits until it accepts connections. */
  readonly start: Effect.Effect<void, Error>
}

/** The server of the test's own. @since 0.1.0 @category tags */
export class PrivateServer
  extends Context.Tag("@sendline/store-postgres/testing/PrivateServer")<PrivateServer, Server>()
{}

/** Where `initdb` and `pg_ctl` are, if anywhere. */
const binaries = (): string | undefined => {
  const given = process.env["PG_BIN"]
  if (given !== undefined && given !== "") return existsSync(join(given, "initdb")) ? given : undefined
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    : []
  return versions.map((v) => join(root, v, "bin")).find((bin) => existsSync(join(bin, "initdb")))
}

const asRoot = process.getuid?.() === 0

/** Runs `file args`, as the `postgres` user when we are root; fails with its output. */
const run = (file: string, args: ReadonlyArray<string>) =>
  Effect.async<string, Error>((resume) => {
    const [command, all] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, [...args]]
    execFile(command, all, { timeout: 30_000 }, (error, stdout, stderr) =>
      resume(
        error === null
          ? Effect.succeed(stdout)
          : Effect.fail(new Error(`${file} ${args.join(" ")}: ${error.message}\n${stderr}`))
      ))
  })

/** A port nothing listens on now. */
const freePort = Effect.async<number>((resume) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * Why no server of the test's own can be made here (no server programs; root without `runuser`
 * or a `postgres` user), or none when one can.
 *
 * @since 0.1.0
 * @category probes
 */
export const unavailable: Effect.Effect<Option.Option<string>> = Effect.gen(function*() {
  const bin = binaries()
  if (bin === undefined) return Option.some("no initdb (install PostgreSQL's server, or set PG_BIN)")
  if (!asRoot) return Option.none()
  const user = yield* Effect.either(Effect.async<void, Error>((resume) => {
    execFile(
      "runuser",
      ["-u", "postgres", "--", "true"],
      (error) => resume(error === null ? Effect.void : Effect.fail(error))
    )
  }))
  return user._tag === "Right"
    ? Option.none()
    : Option.some("run as root, and runuser -u postgres fails (initdb refuses root)")
})

/**
 * `unavailable`, saying why in one loud line on stderr when it is some: the caller skips its tests.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe: Effect.Effect<boolean> = Effect.flatMap(
  unavailable,
  Option.match({
    onNone: () => Effect.succeed(true),
    onSome: (reason) => Effect.as(Console.error(`\n!!!!! PRIVATE POSTGRESQL TESTS SKIPPED: ${reason} !!!!!\n`), false)
  })
)

/**
 * A new cluster, started; stopped and removed when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Server, Error, Scope.Scope> = Effect.gen(function*() {
  const bin = binaries()
  if (bin === undefined) return yield* Effect.fail(new Error("no initdb"))
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "sendline-pg-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  if (asRoot) {
    yield* Effect.orDie(
      Effect.tryPromise(() =>
        new Promise<void>((done, fail) =>
          execFile("chown", ["postgres:", dir], (error) => (error === null ? done() : fail(error)))
        )
      )
    )
  }
  const data = join(dir, "data")
  yield* run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "--no-instructions"])
  const port = yield* freePort
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  const pgCtl = (...args: ReadonlyArray<string>) => Effect.asVoid(run(join(bin, "pg_ctl"), ["-D", data, ...args]))
  const start = pgCtl("-o", options, "-l", join(dir, "log"), "-w", "start")
  const stop = pgCtl("-m", "fast", "-w", "stop")
  yield* Effect.acquireRelease(start, () => Effect.ignore(stop))
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, start, stop }
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<PrivateServer, Error> = Layer.scoped(PrivateServer, make)
