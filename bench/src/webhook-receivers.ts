/**
 * The webhook receivers of `webhook-receiver.ts` in a child process of their own (so that their CPU
 * is not the measured server's or deliverer's): started, asked over IPC, stopped.
 */
import { spawn } from "node:child_process"
import { REPO_ROOT } from "./servers.js"
import type { Command, Reply } from "./webhook-receiver.js"

/** The running receivers: where each listens, a question to them, and their end. */
export interface Receiver {
  /** Answers 200, checking each delivery's signature with the secret it was started with. */
  readonly okUrl: string
  /** Never answers. */
  readonly stuckUrl: string
  readonly ask: <T extends Reply["type"]>(
    command: Command & { readonly type: T }
  ) => Promise<Extract<Reply, { type: T }>>
  readonly stop: () => Promise<void>
}

/** Starts the receivers, checking signatures with `secret`; resolves once both listen. */
export const startReceiver = (secret: string): Promise<Receiver> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@sendline/source", "--import", "tsx", "bench/src/webhook-receiver.ts"],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, WEBHOOK_SECRET: secret },
        stdio: ["ignore", "inherit", "inherit", "ipc"]
      }
    )
    const pending = new Map<string, (reply: Reply) => void>()
    child.on("message", (reply: Reply) => {
      if (reply.type !== "ready") {
        const answered = pending.get(reply.type)
        pending.delete(reply.type)
        return answered?.(reply)
      }
      resolve({
        okUrl: `http://127.0.0.1:${reply.okPort}/webhooks`,
        stuckUrl: `http://127.0.0.1:${reply.stuckPort}/webhooks`,
        ask: (command) =>
          new Promise((answered) => {
            pending.set(command.type, answered as (reply: Reply) => void)
            child.send(command)
          }),
        stop: () =>
          new Promise((stopped) => {
            if (child.exitCode !== null) return stopped()
            child.once("exit", () => stopped())
            child.disconnect()
            setTimeout(() => child.kill("SIGKILL"), 5_000).unref()
          })
      })
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`the webhook receiver exited (${code}) before it was ready`)))
  })
