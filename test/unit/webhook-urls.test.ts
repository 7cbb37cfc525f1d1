import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../domain/errors.ts";
import { checkWebhookUrl, specialRange } from "../../domain/webhook-urls.ts";

// domain/webhook-urls.ts: where a webhook may point (docs/api.md "Webhooks", URLs). Every range is
// also tried on a Worker running as production does in test/webhooks/production-urls.test.ts;
// here each rule and each branch, with the message that says which rule refused.

function refusal(url: string, allowLoopback: boolean): DomainError {
  try {
    checkWebhookUrl(url, allowLoopback);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`${url} was accepted (allowLoopback ${allowLoopback})`);
}

function expectRefused(url: string, allowLoopback: boolean, message: string) {
  const error = refusal(url, allowLoopback);
  expect(error.code, url).toBe("invalid_field");
  expect(error.details, url).toEqual({ field: "url" });
  expect(error.message, url).toBe(message);
}

describe("checkWebhookUrl", () => {
  it("accepts https to a public name or address, and answers it normalised", () => {
    for (const allow of [false, true]) {
      expect(checkWebhookUrl("https://hooks.example.com/opsroom", allow)).toBe("https://hooks.example.com/opsroom");
      expect(checkWebhookUrl("HTTPS://Hooks.Example.COM", allow)).toBe("https://hooks.example.com/");
      expect(checkWebhookUrl("https://93.184.216.34:8443/x?y=1#z", allow)).toBe("https://93.184.216.34:8443/x?y=1#z");
      expect(checkWebhookUrl("https://[2606:4700::1111]/", allow)).toBe("https://[2606:4700::1111]/");
      // Names are not resolved: a name that merely contains "localhost" is a name like any other.
      expect(checkWebhookUrl("https://localhost.example.com/", allow)).toBe("https://localhost.example.com/");
      expect(checkWebhookUrl("https://mylocalhost/", allow)).toBe("https://mylocalhost/");
      // A name that starts like an address is a name: only a whole dotted quad is an address.
      expect(checkWebhookUrl("https://10.0.0.1.example.com/", allow)).toBe("https://10.0.0.1.example.com/");
      expect(checkWebhookUrl("https://127.0.0.1.example.com/", allow)).toBe("https://127.0.0.1.example.com/");
    }
  });

  it("refuses what is not a URL", () => {
    for (const url of ["", "not a url", "//hooks.example.com", "https://"]) expectRefused(url, true, "url is not a valid URL");
  });

  it("refuses every scheme but https and http, even to this machine where loopback is allowed", () => {
    const others = [
      "ftp://hooks.example.com/",
      "ws://hooks.example.com/",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "data:text/plain,x",
      "httpx://a.example/",
    ];
    for (const url of [...others, "ftp://127.0.0.1/", "ws://localhost:8080/", "wss://[::1]/", "gopher://localhost/"]) {
      expectRefused(url, true, "url must use https");
      expectRefused(url, false, "url must use https");
    }
  });

  it("refuses plain http to anything but this machine's loopback", () => {
    expectRefused("http://hooks.example.com/", true, "url must use https");
    expectRefused("http://hooks.example.com/", false, "url must use https");
    expectRefused("http://93.184.216.34/", true, "url must use https");
  });

  it("refuses credentials in the URL, a user or a password alone", () => {
    for (const url of [
      "https://user:pass@hooks.example.com/",
      "https://user@hooks.example.com/",
      "https://:pass@hooks.example.com/",
      "http://user@127.0.0.1/",
    ]) {
      expectRefused(url, true, "url must not carry credentials");
    }
  });

  it("loopback (localhost names, 127/8, ::1) only where the deployment allows it, over http or https", () => {
    const loopbacks = [
      "http://localhost/",
      "http://localhost./",
      "http://LOCALHOST:3000/",
      "http://hooks.localhost/",
      "https://a.b.localhost./",
      "http://127.0.0.1:9000/hook",
      "https://127.255.255.254/",
      "http://[::1]/",
      "http://2130706433/",
      "http://0x7f.1/",
    ];
    for (const url of loopbacks) {
      expectRefused(url, false, "url must not point at this machine");
      expect(checkWebhookUrl(url, true), url).toBe(new URL(url).toString());
    }
  });

  it("refuses every special-purpose address, naming its range, even where loopback is allowed", () => {
    const special: Array<[string, string, string]> = [
      ["https://10.1.2.3/", "10.1.2.3", "private"],
      ["https://192.168.0.1/", "192.168.0.1", "private"],
      ["https://169.254.169.254/", "169.254.169.254", "linkLocal"],
      ["https://0.0.0.0/", "0.0.0.0", "unspecified"],
      ["https://100.64.0.1/", "100.64.0.1", "carrierGradeNat"],
      ["https://224.0.0.1/", "224.0.0.1", "multicast"],
      ["https://255.255.255.255/", "255.255.255.255", "broadcast"],
      ["https://[fd00::1]/", "[fd00::1]", "uniqueLocal"],
      ["https://[fe80::1]/", "[fe80::1]", "linkLocal"],
      ["https://[::ffff:7f00:1]/", "[::ffff:7f00:1]", "ipv4Mapped"],
      ["https://[::]/", "[::]", "unspecified"],
      ["https://[2002:a00::1]/", "[2002:a00::1]", "6to4"],
      // ::a.b.c.d, the deprecated IPv4-compatible form, which ipaddr.js calls unicast.
      ["https://[::10.0.0.1]/", "[::a00:1]", "ipv4Compatible"],
      ["https://[::93.184.216.34]/", "[::5db8:d822]", "ipv4Compatible"],
    ];
    for (const [url, host, range] of special) {
      for (const allow of [false, true]) {
        expectRefused(url, allow, `url must point at a public address (${host} is in the special-purpose range "${range}")`);
      }
    }
  });
});

describe("specialRange", () => {
  it("answers null for a public unicast address of either family", () => {
    expect(specialRange(ipaddr.parse("93.184.216.34"))).toBeNull();
    expect(specialRange(ipaddr.parse("2606:4700::1111"))).toBeNull();
    // Zeros in the first six groups only make an address IPv4-compatible when all six are zero.
    expect(specialRange(ipaddr.parse("2606::5db8:d822"))).toBeNull();
    expect(specialRange(ipaddr.parse("0:0:0:0:0:1:5db8:d822"))).toBeNull();
    expect(specialRange(ipaddr.parse("1::5db8:d822"))).toBeNull();
  });

  it("answers ipaddr's range for every other, and ipv4Compatible for ::a.b.c.d", () => {
    expect(specialRange(ipaddr.parse("127.0.0.1"))).toBe("loopback");
    expect(specialRange(ipaddr.parse("::1"))).toBe("loopback");
    expect(specialRange(ipaddr.parse("::5db8:d822"))).toBe("ipv4Compatible");
    expect(specialRange(ipaddr.parse("0:0:0:0:0:0:ffff:ffff"))).toBe("ipv4Compatible");
  });
});
