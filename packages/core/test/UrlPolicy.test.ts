import { assert, describe, it } from "@effect/vitest"
import { UrlPolicy } from "@sendline/core"

describe("UrlPolicy", () => {
  it("allows https on public hosts only, by default", () => {
    assert.isTrue(UrlPolicy.allows("https://hooks.example.com/sms", UrlPolicy.strict))
    for (
      const url of [
        "http://hooks.example.com/sms",
        "https://localhost/x",
        "https://127.0.0.1/x",
        "https://10.1.2.3/x",
        "https://172.20.0.1/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest",
        "https://[::1]/x",
        "https://[fe80::1]/x",
        "https://224.0.0.1/x",
        "https://user:pw@example.com/x",
        "ftp://example.com/x",
        "not a url"
      ]
    ) assert.isFalse(UrlPolicy.allows(url, UrlPolicy.strict), url)
  })

  it("judges an IPv6 address that carries an IPv4 one by that IPv4 address, in any spelling", () => {
    for (
      const host of [
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:a9fe:a9fe]",
        "[::ffff:169.254.169.254]",
        "[::127.0.0.1]",
        "[::10.0.0.1]",
        "[64:ff9b::192.168.0.1]",
        "[2002:c0a8:101::1]",
        "[::]",
        "[fc00::1]",
        "[fd12:3456::1]",
        "[fec0::1]",
        "[ff02::1]",
        "198.18.0.1"
      ]
    ) assert.isFalse(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), host)
    for (
      const host of [
        "[::ffff:8.8.8.8]",
        "[64:ff9b::8.8.8.8]",
        "[2002:808:808::1]",
        "[2001:4860:4860::8888]",
        "[2606:4700::1111]"
      ]
    ) {
      assert.isTrue(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), host)
    }
  })

  it("refuses names for local networks, and documentation, discard and tunnel addresses", () => {
    for (
      const host of [
        "intranet",
        "ip6-localhost",
        "localhost.localdomain",
        "printer.home.arpa",
        "router.lan",
        "kubernetes.default.svc",
        "db.corp",
        "192.0.0.1",
        "192.0.2.10",
        "198.51.100.7",
        "203.0.113.200",
        "[2001:db8::1]",
        "[100::1]",
        "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
        "[64:ff9b:1::a00:1]",
        "[::ffff:0:127.0.0.1]",
        "[::ffff:0:7f00:1]"
      ]
    ) assert.isFalse(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), host)
    for (
      const host of [
        "192.0.3.1",
        "198.51.101.1",
        "203.0.114.1",
        "[2001:4860::1]",
        "hooks.example.co.uk",
        "[::ffff:0:8.8.8.8]"
      ]
    ) {
      assert.isTrue(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), host)
    }
  })

  // One row per entry of IANA's IPv4 and IPv6 Special-Purpose Address Registries (2025): an address
  // inside it. The prefixes that carry an IPv4 address are judged by that address (rows above).
  const registries: ReadonlyArray<readonly [string, string]> = [
    ["0.1.2.3", "0.0.0.0/8 this network"],
    ["0.0.0.0", "0.0.0.0/32 this host"],
    ["10.200.0.1", "10.0.0.0/8 private use"],
    ["100.127.255.254", "100.64.0.0/10 shared address space"],
    ["127.8.8.8", "127.0.0.0/8 loopback"],
    ["169.254.1.1", "169.254.0.0/16 link local"],
    ["172.31.255.1", "172.16.0.0/12 private use"],
    ["192.0.0.100", "192.0.0.0/24 IETF protocol assignments"],
    ["192.0.0.5", "192.0.0.0/29 IPv4 service continuity prefix"],
    ["192.0.0.8", "192.0.0.8/32 IPv4 dummy address"],
    ["192.0.0.9", "192.0.0.9/32 PCP anycast"],
    ["192.0.0.10", "192.0.0.10/32 TURN anycast"],
    ["192.0.0.170", "192.0.0.170/32 NAT64/DNS64 discovery"],
    ["192.0.0.171", "192.0.0.171/32 NAT64/DNS64 discovery"],
    ["192.0.2.1", "192.0.2.0/24 documentation (TEST-NET-1)"],
    ["192.31.196.1", "192.31.196.0/24 AS112-v4"],
    ["192.52.193.1", "192.52.193.0/24 AMT"],
    ["192.88.99.1", "192.88.99.0/24 deprecated 6to4 relay anycast"],
    ["192.168.200.1", "192.168.0.0/16 private use"],
    ["192.175.48.1", "192.175.48.0/24 direct delegation AS112 service"],
    ["198.19.255.1", "198.18.0.0/15 benchmarking"],
    ["198.51.100.1", "198.51.100.0/24 documentation (TEST-NET-2)"],
    ["203.0.113.1", "203.0.113.0/24 documentation (TEST-NET-3)"],
    ["240.1.2.3", "240.0.0.0/4 reserved"],
    ["255.255.255.255", "255.255.255.255/32 limited broadcast"],
    ["[::1]", "::1/128 loopback"],
    ["[::]", "::/128 unspecified"],
    ["[64:ff9b:1::8.8.8.8]", "64:ff9b:1::/48 local-use IPv4/IPv6 translation"],
    ["[100::abcd]", "100::/64 discard-only"],
    ["[100:0:0:1::1]", "100:0:0:1::/64 dummy IPv6 prefix"],
    ["[2001:1ff::1]", "2001::/23 IETF protocol assignments"],
    ["[2001::1]", "2001::/32 Teredo"],
    ["[2001:1::1]", "2001:1::1/128 PCP anycast"],
    ["[2001:1::2]", "2001:1::2/128 TURN anycast"],
    ["[2001:1::3]", "2001:1::3/128 DNS-SD SRP anycast"],
    ["[2001:2::1]", "2001:2::/48 benchmarking"],
    ["[2001:3::1]", "2001:3::/32 AMT"],
    ["[2001:4:112::1]", "2001:4:112::/48 AS112-v6"],
    ["[2001:10::1]", "2001:10::/28 deprecated ORCHID"],
    ["[2001:20::1]", "2001:20::/28 ORCHIDv2"],
    ["[2001:30::1]", "2001:30::/28 drone remote ID DETs"],
    ["[2001:db8:ffff::1]", "2001:db8::/32 documentation"],
    ["[2620:4f:8000::1]", "2620:4f:8000::/48 direct delegation AS112 service"],
    ["[3fff:fff::1]", "3fff::/20 documentation"],
    ["[5f00:1::1]", "5f00::/16 segment routing SIDs"],
    ["[fdff::1]", "fc00::/7 unique local"],
    ["[febf::1]", "fe80::/10 link-local unicast"]
  ]

  it("refuses an address in every entry of IANA's special-purpose registries", () => {
    for (const [host, entry] of registries) {
      assert.isFalse(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), entry)
    }
    for (
      const host of [
        "192.88.100.1",
        "192.31.197.1",
        "[2001:200::1]",
        "[3fff:1000::1]",
        "[5f01::1]",
        "[2620:4f:8001::1]"
      ]
    ) {
      assert.isTrue(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), `${host}, just outside`)
    }
  })

  it("loosens exactly what the configuration allows", () => {
    assert.isTrue(UrlPolicy.allows("http://example.com/x", { allowHttp: true, allowPrivate: false }))
    assert.isFalse(UrlPolicy.allows("http://127.0.0.1/x", { allowHttp: true, allowPrivate: false }))
    assert.isTrue(UrlPolicy.allows("http://127.0.0.1:8080/x", { allowHttp: true, allowPrivate: true }))
  })
})
