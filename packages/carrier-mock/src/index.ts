/**
 * A deterministic carrier simulator for tests, demos and embedders.
 *
 * @since 0.1.0
 */
export * as CarrierMock from "./CarrierMock.js"
