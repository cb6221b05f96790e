/**
 * Segment-counting throughput: Sendline's `Segments.segmentsOf` against the npm packages
 * `sms-segments-calculator` and `split-sms`, over a deterministic generated corpus. Also shown:
 * `Segments.count`, the full preview (encoding, code points, the characters forcing UCS-2) that the
 * send path computes, so the figure of the function a send pays for is in the same table.
 */
import { Segments } from "@sendline/core"
import { createRequire } from "node:module"
import { performance } from "node:perf_hooks"
import type * as SmsSegmentsCalculator from "sms-segments-calculator"
import type * as SplitSms from "split-sms"

// Both packages are CommonJS.
const require = createRequire(import.meta.url)
const smsSegmentsCalculator = require("sms-segments-calculator") as typeof SmsSegmentsCalculator
const splitSms = require("split-sms") as typeof SplitSms

const CORPUS_SIZE = 20_000
const SEED = 0x5e4d11e
const CHUNK = 100
const WARMUP_MS = 300
const ROUND_MS = 100
const MIN_ROUNDS = 5
const MIN_TIMED_MS = 1_500

// mulberry32: small, fast, deterministic.
const prng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = [
  "your",
  "code",
  "is",
  "order",
  "has",
  "shipped",
  "delivery",
  "tomorrow",
  "between",
  "and",
  "reply",
  "STOP",
  "to",
  "opt",
  "out",
  "appointment",
  "confirmed",
  "for",
  "at",
  "the",
  "clinic",
  "please",
  "arrive",
  "minutes",
  "early",
  "verification",
  "expires",
  "in",
  "Hi",
  "thanks",
  "for",
  "your",
  "payment",
  "of",
  "received",
  "balance",
  "ticket",
  "gate",
  "boarding",
  "starts",
  "café",
  "Müller",
  "Åsa",
  "señor",
  "Ørsted",
  "Ærø",
  "straße",
  "über",
  "déjà",
  "vu",
  "@home",
  "100%",
  "£5",
  "$20",
  "¥300",
  "Δ",
  "§4",
  "¿qué?",
  "¡hola!",
  "#1",
  "(new)",
  "a+b",
  "x=y",
  "<ok>",
  "1/2"
]
const EXTENSION_TOKENS = ["€12.50", "[promo]", "{name}", "~approx", "a|b", "2^10", "C:\\path", "{ } [ ]", "€"]
const UCS2_TOKENS = [
  "“quoted”",
  "it’s",
  "‘single’",
  "😀",
  "🎉",
  "👍🏽",
  "❤️",
  "🚚",
  "✅",
  "Привет",
  "你好",
  "ç",
  "ğ",
  "…",
  "–",
  "\u00a0"
]

type Kind = "short GSM" | "long GSM" | "GSM + extension" | "UCS-2 short" | "UCS-2 long"

const buildCorpus = (size: number, seed: number): ReadonlyArray<string> => {
  const random = prng(seed)
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
  const text = (targetLength: number, extra: ReadonlyArray<string>, extraRate: number) => {
    let out = ""
    while (out.length < targetLength) {
      const word = extra.length > 0 && random() < extraRate ? pick(extra) : pick(WORDS)
      out += out.length === 0 ? word : (random() < 0.1 ? ".\n" : " ") + word
    }
    return out
  }
  const kinds: ReadonlyArray<readonly [Kind, number]> = [
    ["short GSM", 0.4],
    ["long GSM", 0.15],
    ["GSM + extension", 0.15],
    ["UCS-2 short", 0.2],
    ["UCS-2 long", 0.1]
  ]
  const corpus: Array<string> = []
  for (let n = 0; n < size; n++) {
    let r = random()
    let kind: Kind = kinds[0]![0]
    for (const [k, weight] of kinds) {
      if (r < weight) {
        kind = k
        break
      }
      r -= weight
    }
    switch (kind) {
      case "short GSM":
        corpus.push(text(int(10, 160), [], 0))
        break
      case "long GSM":
        corpus.push(text(int(150, 800), [], 0))
        break
      case "GSM + extension":
        corpus.push(text(int(20, 500), EXTENSION_TOKENS, 0.15))
        break
      case "UCS-2 short":
        corpus.push(text(int(5, 70), UCS2_TOKENS, 0.2) + pick(UCS2_TOKENS))
        break
      case "UCS-2 long":
        corpus.push(text(int(60, 500), UCS2_TOKENS, 0.1) + pick(UCS2_TOKENS))
        break
    }
  }
  return corpus
}

interface Contender {
  readonly name: string
  readonly segments: (body: string) => number
  /** One of Sendline's own functions, not a package it is compared with. */
  readonly ours?: boolean
}

const contenders: ReadonlyArray<Contender> = [
  { name: "Sendline Segments.segmentsOf", segments: Segments.segmentsOf, ours: true },
  { name: "Sendline Segments.count", segments: (body) => Segments.count(body).segments, ours: true },
  {
    name: "sms-segments-calculator 1.3.0",
    segments: (body) => new smsSegmentsCalculator.SegmentedMessage(body).segmentsCount
  },
  { name: "split-sms 0.1.7", segments: (body) => splitSms.split(body).parts.length }
]

// Accumulates every result so no call can be optimised away.
let sink = 0

// One round: consecutive messages (cycling through the corpus from `from`) in chunks, until `minMs` has passed.
const round = (corpus: ReadonlyArray<string>, segments: (body: string) => number, from: number, minMs: number) => {
  let i = from
  let messages = 0
  let total = 0
  const start = performance.now()
  let now = start
  do {
    for (let k = 0; k < CHUNK; k++) {
      total += segments(corpus[i]!)
      if (++i === corpus.length) i = 0
    }
    messages += CHUNK
    now = performance.now()
  } while (now - start < minMs)
  sink += total
  return { next: i, messages, ms: now - start }
}

const measure = (corpus: ReadonlyArray<string>, contender: Contender) => {
  // Warm-up, so the JIT has settled.
  let next = round(corpus, contender.segments, 0, WARMUP_MS).next
  // Timed rounds of at least ROUND_MS each, at least MIN_ROUNDS and MIN_TIMED_MS; report the median round.
  const rates: Array<number> = []
  let timedMs = 0
  let messages = 0
  while (rates.length < MIN_ROUNDS || timedMs < MIN_TIMED_MS) {
    const r = round(corpus, contender.segments, next, ROUND_MS)
    next = r.next
    timedMs += r.ms
    messages += r.messages
    rates.push(r.messages / (r.ms / 1000))
  }
  rates.sort((a, b) => a - b)
  return { rate: rates[Math.floor(rates.length / 2)]!, rounds: rates.length, messages }
}

const formatRate = (rate: number) => Math.round(rate).toLocaleString("en-US")

/** Builds the corpus, checks agreement, measures each contender and prints a table. */
export async function runSegmentsBench(): Promise<void> {
  const corpus = buildCorpus(CORPUS_SIZE, SEED)
  const ours = corpus.map(Segments.segmentsOf)
  const ucs2 = corpus.filter((body) => Segments.count(body).encoding === "UCS-2").length
  const meanLength = corpus.reduce((sum, body) => sum + body.length, 0) / corpus.length
  const multi = ours.filter((n) => n > 1).length
  console.log(
    `corpus: ${corpus.length.toLocaleString("en-US")} messages (seed 0x${SEED.toString(16)}), ` +
      `${corpus.length - ucs2} GSM-7 / ${ucs2} UCS-2, ${multi} multi-segment, ` +
      `mean ${meanLength.toFixed(0)} UTF-16 units, ${ours.reduce((a, b) => a + b, 0)} segments in all`
  )

  console.log("\nagreement with Sendline's segment count:")
  for (const contender of contenders.filter((c) => !c.ours)) {
    let disagree = 0
    for (let i = 0; i < corpus.length; i++) if (contender.segments(corpus[i]!) !== ours[i]) disagree++
    console.log(`  ${contender.name.padEnd(30)} disagrees on ${disagree} of ${corpus.length} messages`)
  }

  console.log(
    `\nthroughput (${WARMUP_MS} ms warm-up, then rounds of >= ${ROUND_MS} ms cycling through the corpus; median round):`
  )
  const results: Array<
    {
      readonly name: string
      readonly ours: boolean
      readonly rate: number
      readonly rounds: number
      readonly messages: number
    }
  > = []
  for (const contender of contenders) {
    // Yield between contenders so pending I/O (the log lines) is flushed.
    await new Promise((resolve) => setImmediate(resolve))
    results.push({ name: contender.name, ours: contender.ours === true, ...measure(corpus, contender) })
  }
  const [sendline, preview] = results as [typeof results[number], typeof results[number]]
  const fastestPackage = results.filter((r) => !r.ours).reduce((a, b) => (b.rate > a.rate ? b : a))
  console.log(
    `  ${"name".padEnd(30)} ${"messages/s".padStart(12)} ${"Sendline ×".padStart(11)} ${"rounds".padStart(7)} ${
      "messages timed".padStart(15)
    }`
  )
  for (const r of results) {
    console.log(
      `  ${r.name.padEnd(30)} ${formatRate(r.rate).padStart(12)} ${(sendline.rate / r.rate).toFixed(1).padStart(10)}× ${
        String(r.rounds).padStart(7)
      } ${formatRate(r.messages).padStart(15)}`
    )
  }
  const ratio = sendline.rate / fastestPackage.rate
  console.log(
    `\nSendline / fastest package (${fastestPackage.name}): ${ratio.toFixed(1)}× ` +
      `(target ≥ 20×: ${ratio >= 20 ? "met" : "NOT met"}); the full preview, Segments.count: ` +
      `${(preview.rate / fastestPackage.rate).toFixed(1)}×`
  )
  if (sink === -1) console.log(sink) // keeps `sink` observable
}
