import { assert, describe, it } from "@effect/vitest"
import { UrlPolicy } from "@sendline/core"

describe("UrlPolicy", () => {
  it("allows https on public hosts only, by default", () => {
    assert.isTrue(UrlPolicy.allows("https://hooks.example.com/sms", UrlPolicy.strict))
    for (const url of [
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
    ]) assert.isFalse(UrlPolicy.allows(url, UrlPolicy.strict), url)
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
    for (const host of ["[::ffff:8.8.8.8]", "[64:ff9b::8.8.8.8]", "[2002:808:808::1]", "[2001:4860:4860::8888]", "[2606:4700::1111]"]) {
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
    for (const host of ["192.0.3.1", "198.51.101.1", "203.0.114.1", "[2001:4860::1]", "hooks.example.co.uk", "[::ffff:0:8.8.8.8]"]) {
      assert.isTrue(UrlPolicy.allows(`https://${host}/x`, UrlPolicy.strict), host)
    }
  })

  it("loosens exactly what the configuration allows", () => {
    assert.isTrue(UrlPolicy.allows("http://example.com/x", { allowHttp: true, allowPrivate: false }))
    assert.isFalse(UrlPolicy.allows("http://127.0.0.1/x", { allowHttp: true, allowPrivate: false }))
    assert.isTrue(UrlPolicy.allows("http://127.0.0.1:8080/x", { allowHttp: true, allowPrivate: true }))
  })
})
