/** The types of `parse-prometheus-text-format` (it ships none): prom2json's shape. */
declare module "parse-prometheus-text-format" {
  /** One series: a value, or a histogram's buckets (upper bound → cumulative count), count and sum. */
  export interface Sample {
    readonly labels?: Readonly<Record<string, string>>
    readonly value?: string
    readonly buckets?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  /** One metric family: its name, help, type in capitals, and series. */
  export interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  /** Parses the Prometheus text exposition format; throws on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): Array<Family>
}
