/**
 * A worker thread of the operator list bench: loads one SQLite file (`Load.loadSqlite`), posting
 * its progress, then "done".
 */
import { Effect, Logger, LogLevel } from "effect"
import { parentPort, workerData } from "node:worker_threads"
import * as Load from "./oplist-load.js"

const { filename, size } = workerData as { readonly filename: string; readonly size: number }

await Effect.runPromise(
  Load.loadSqlite(filename, size, (written, of) => Effect.sync(() => parentPort!.postMessage({ written, of }))).pipe(
    Logger.withMinimumLogLevel(LogLevel.Warning)
  )
)
parentPort!.postMessage("done")
