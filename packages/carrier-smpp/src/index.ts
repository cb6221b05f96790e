/**
 * A real carrier: SMPP 3.4 over an aggregator's account, with delivery receipts.
 *
 * @since 0.1.0
 */
export * as Receipts from "./Receipts.js"
export * as SmppCarrier from "./SmppCarrier.js"
export * as SmppUrl from "./SmppUrl.js"
export * as Submits from "./Submits.js"
