/**
 * Sendline benchmarks: `npm run bench` from the repository root. Benches run one after another.
 */
import { runLifecycleBench } from "./lifecycle.js"
import { runSegmentsBench } from "./segments.js"
import { runSendBench } from "./send.js"

const heading = (title: string) => console.log(`\n=== ${title} ===\n`)

heading("SMS segment counting")
await runSegmentsBench()

heading("Send throughput (HTTP)")
await runSendBench()

heading("Send to delivered (core API and workers)")
await runLifecycleBench()
