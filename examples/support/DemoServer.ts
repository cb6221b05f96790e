/**
 * `sendline serve --demo` as the examples' tests run it: a child process on a free port of
 * 127.0.0.1, awaited until it prints its demo key, stopped with SIGTERM.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { createServer } from "node:net"

/** A free port on 127.0.0.1. */
const freePort = async (): Promise<number> => {
  const server = createServer().listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, "close")
  return port
}

/** A running server: its URL and demo key, what it printed so far, and how to stop it. */
export interface DemoServer {
  readonly url: string
  readonly key: string
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** Starts `command … serve --demo` with `env`; answers once it prints its demo key (60 s at most), else fails with its output. */
export const serveDemo = async (
  command: string,
  env: NodeJS.ProcessEnv,
  args: ReadonlyArray<string> = []
): Promise<DemoServer> => {
  const port = await freePort()
  const child = spawn(command, [...args, "serve", "--demo"], {
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const key = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no demo key within 60 s:\n${output}`)), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const found = /Demo API key \(all permissions\): (\S+)/.exec(output)
      if (found) {
        clearTimeout(timer)
        resolve(found[1]!)
      }
    }
    child.stdout.on("data", read)
    child.stderr.on("data", read)
    child.once("exit", (code) => reject(new Error(`sendline serve exited (${code}):\n${output}`)))
  })
  const stop = async () => {
    if (child.exitCode !== null) return
    child.kill("SIGTERM")
    await once(child, "exit")
  }
  return { key, stop, url: `http://127.0.0.1:${port}`, output: () => output }
}
