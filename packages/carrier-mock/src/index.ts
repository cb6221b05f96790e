/**
 * A deterministic carrier simulator for tests, demos and embedders.
 *
 * @since 0.1.0
 */
export * as CarrierMock from "./CarrierMock.js"

/**
 * The simulated carrier's URL (`simulated:?report_delay_ms=…`), as a routes file names it.
 *
 * @since 0.2.0
 */
export * as SimulatedUrl from "./SimulatedUrl.js"
