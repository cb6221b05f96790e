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

  it("loosens exactly what the configuration allows", () => {
    assert.isTrue(UrlPolicy.allows("http://example.com/x", { allowHttp: true, allowPrivate: false }))
    assert.isFalse(UrlPolicy.allows("http://127.0.0.1/x", { allowHttp: true, allowPrivate: false }))
    assert.isTrue(UrlPolicy.allows("http://127.0.0.1:8080/x", { allowHttp: true, allowPrivate: true }))
  })
})
