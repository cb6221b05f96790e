/**
 * `abuse.ts` item 5, the starving receiver (issue 29): the demo account's delivery latency (from a
 * send's answer to its `message.queued` event reaching its receiver), p50 and p95 over 40 sends
 * 100 ms apart, alone; then again while a second account (made with `sendline`) has five
 * subscriptions to a receiver that never answers and has just sent 20 messages (100 deliveries
 * that each hold a slot for the transport's 10 s).
 */
import { api, deadReceiver, newAccount, quantile, receiver, type Target, until } from "./abuse-kit.js"

const sends = 40

export const starvingReceiver = async (target: Target) => {
  const arrived = new Map<string, number>()
  const hook = await receiver(0, (event, at) => arrived.set(event.data.id, at))
  const dead = await deadReceiver()
  const secret = "whsec-abuse-0123456789"
  const send = (key: string, body: string) =>
    api(target, key, "POST", "/v1/messaging/messages", {
      to: "+61412345678",
      sender_id: key === target.key ? "Sendline" : "Starve",
      market: "AU",
      body
    })
  // the demo account's latencies (ms) over `sends` sends 100 ms apart
  const latencies = async () => {
    const answered = new Map<string, number>()
    for (let i = 0; i < sends; i++) {
      const sent = await send(target.key, `latency ${i}`)
      answered.set(sent.json.data.id, performance.now())
      await new Promise((r) => setTimeout(r, 100))
    }
    await until(() => [...answered.keys()].every((id) => arrived.has(id)), 120_000)
    const each = [...answered].map(([id, at]) => (arrived.get(id) ?? Infinity) - at)
    return `p50 ${quantile(each, 0.5).toFixed(0)} ms, p95 ${quantile(each, 0.95).toFixed(0)} ms`
  }
  try {
    const subscribed = await api(target, target.key, "POST", "/v1/webhooks", {
      url: `${hook.url}/in`,
      events: ["message.queued"],
      secret
    })
    if (subscribed.status !== 201) {
      throw new Error(`subscribe answered ${subscribed.status}: ${JSON.stringify(subscribed.json)}`)
    }
    const alone = await latencies()
    const attacker = newAccount(target, "Starving Receivers", "Starve")
    for (let i = 0; i < 5; i++) {
      await api(target, attacker, "POST", "/v1/webhooks", {
        url: `${dead.url}/dead-${i}`,
        events: ["message.queued"],
        secret
      })
    }
    await Promise.all(Array.from({ length: 20 }, (_, i) => send(attacker, `dead ${i}`)))
    const starved = await latencies()
    console.log(
      `8. another account's delivery latency over ${sends} sends: alone ${alone}; beside five receivers that never answer ${starved}`
    )
  } finally {
    await hook.close()
    await dead.close()
  }
}
