/**
 * Sendline benchmarks: `npm run bench` from the repository root. Benches run one after another;
 * names given after `--` run only those (`npm run bench -- oplist`: `segments`, `send`,
 * `lifecycle`, `dispatch`, `oplist`, `webhooks`, `smpp`, `cli`, `optouts`, `batch`, `msglist`, `e2e`).
 */
import { runBatchBench } from "./batch.js"
import { runCliBench } from "./cli.js"
import { runDispatchBench } from "./dispatch.js"
import { runEndToEndBench } from "./endtoend.js"
import { runLifecycleBench } from "./lifecycle.js"
import { runMessageListBench } from "./msglist.js"
import { runOperatorListBench } from "./oplist.js"
import { runOptOutsBench } from "./optouts.js"
import { runSegmentsBench } from "./segments.js"
import { runSendBench } from "./send.js"
import { runSmppBench } from "./smpp.js"
import { runWebhooksBench } from "./webhooks.js"

const heading = (title: string) => console.log(`\n=== ${title} ===\n`)

const benches: ReadonlyArray<readonly [name: string, title: string, run: () => Promise<unknown>]> = [
  ["segments", "SMS segment counting", runSegmentsBench],
  ["send", "Send throughput (HTTP)", runSendBench],
  ["lifecycle", "Send to delivered (core API and workers)", runLifecycleBench],
  ["dispatch", "Dispatch under one account's backlog of 100,000, fair per account", runDispatchBench],
  ["oplist", "Operator registration list (10k vs 1M rows)", runOperatorListBench],
  ["webhooks", "Webhook delivery (deliverer, transport, receiver)", runWebhooksBench],
  ["smpp", "SMPP carrier to a local SMSC (windows 1 and 10, beside the simulated carrier)", runSmppBench],
  ["cli", "The sendline executable's start-up (built and transpiled)", runCliBench],
  [
    "optouts",
    "Opt-outs: an import of 100,000 numbers beside other requests, and the send with 100,000 listed",
    runOptOutsBench
  ],
  ["batch", "Batches: messages accepted a second, beside the single send and the driver alone", runBatchBench],
  ["msglist", "Message list with each filter, batch_id too (10k vs 1M rows)", runMessageListBench],
  ["e2e", "End to end: 100,000 messages in 100 batches to their delivered webhooks", runEndToEndBench]
]

const only = process.argv.slice(2)
const unknown = only.filter((name) => !benches.some(([known]) => known === name))
if (unknown.length > 0) {
  console.error(`No bench named ${unknown.join(", ")}; the benches: ${benches.map(([name]) => name).join(", ")}`)
  process.exit(2)
}
for (const [name, title, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue
  heading(title)
  await run()
}
