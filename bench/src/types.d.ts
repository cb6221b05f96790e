// split-sms 0.1.7 ships no type declarations; this covers the part of its API the benches use.
// (sms-segments-calculator ships its own.)
declare module "split-sms" {
  export interface SplitPart {
    readonly content: string
    readonly length: number
    readonly bytes: number
  }
  export interface SplitResult {
    readonly characterSet: "GSM" | "Unicode"
    readonly parts: ReadonlyArray<SplitPart>
    readonly bytes: number
    readonly length: number
    readonly remainingInPart: number
  }
  export const GSM: "GSM"
  export const UNICODE: "Unicode"
  export function split(
    message: string,
    options?: { readonly characterset?: "GSM" | "Unicode"; readonly summary?: boolean }
  ): SplitResult
}

// autocannon 8.0.0 ships no type declarations; this covers the part of its API the benches use.
declare module "autocannon" {
  namespace autocannon {
    interface Options {
      readonly url: string
      readonly connections?: number
      readonly duration?: number
      readonly pipelining?: number
      readonly timeout?: number
      readonly method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
      readonly headers?: Readonly<Record<string, string>>
      readonly body?: string
      readonly title?: string
    }
    /** Percentiles and summary statistics of one histogram (latency in ms, requests and bytes per second). */
    interface Histogram {
      readonly average: number
      readonly mean: number
      readonly stddev: number
      readonly min: number
      readonly max: number
      readonly total: number
      readonly p50: number
      readonly p90: number
      readonly p97_5: number
      readonly p99: number
    }
    interface Result {
      readonly title?: string
      readonly url: string
      readonly connections: number
      readonly pipelining: number
      readonly duration: number
      readonly samples: number
      readonly errors: number
      readonly timeouts: number
      readonly mismatches: number
      readonly non2xx: number
      readonly resets: number
      readonly "1xx": number
      readonly "2xx": number
      readonly "3xx": number
      readonly "4xx": number
      readonly "5xx": number
      readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>
      readonly latency: Histogram & { readonly totalCount: number }
      readonly requests: Histogram & { readonly sent: number }
      readonly throughput: Histogram
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>
  export = autocannon
}
