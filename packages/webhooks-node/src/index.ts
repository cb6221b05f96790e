/**
 * The Node `WebhookTransport` of Sendline: one POST per delivery on undici's `request`, connected
 * to the very addresses the URL policy checked.
 *
 * @since 0.1.0
 */
export * as HostResolver from "./HostResolver.js"
export * as NodeWebhookTransport from "./NodeWebhookTransport.js"
