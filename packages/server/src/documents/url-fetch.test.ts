import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  allowLoopback,
  keepTrafficOnLoopback,
  type LoopbackServer,
  startLoopbackServer,
  tableLookup,
} from "./url-fetch.testing.ts";
import {
  contentDispositionFileName,
  type FetchPublicUrlOptions,
  fetchPublicUrl,
  nonPublicRange,
  UrlFetchError,
  type UrlFetchErrorKind,
} from "./url-fetch.ts";

function rejectsWith(promise: Promise<unknown>, kind: UrlFetchErrorKind, message?: RegExp): Promise<void> {
  return assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof UrlFetchError, `not a UrlFetchError: ${error}`);
    assert.equal(error.kind, kind, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe("nonPublicRange", () => {
  it("names the range of every non-public address", () => {
    const cases: [string, RegExp][] = [
      ["0.0.0.0", /this network/],
      ["10.0.0.5", /private/],
      ["100.64.0.1", /carrier-grade/],
      ["100.100.100.200", /carrier-grade/],
      ["127.0.0.1", /loopback/],
      ["127.255.255.254", /loopback/],
      ["169.254.169.254", /link-local/],
      ["172.16.0.1", /private/],
      ["172.31.255.255", /private/],
      ["192.0.0.8", /IETF/],
      ["192.0.2.1", /documentation/],
      ["192.168.1.1", /private/],
      ["198.18.0.1", /benchmarking/],
      ["198.19.255.255", /benchmarking/],
      ["198.51.100.7", /documentation/],
      ["203.0.113.9", /documentation/],
      ["224.0.0.1", /multicast/],
      ["240.0.0.1", /reserved/],
      ["255.255.255.255", /reserved/],
      ["::", /reserved/],
      ["::1", /reserved/],
      ["::127.0.0.1", /reserved/],
      ["fc00::1", /unique local/],
      ["fd00:ec2::254", /unique local/],
      ["fe80::1", /link-local/],
      ["fe80::1%eth0", /link-local/],
      ["ff02::1", /multicast/],
      ["2001:db8::1", /documentation/],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", /IETF/],
      ["::ffff:127.0.0.1", /loopback \(IPv4-mapped\)/],
      ["::ffff:7f00:1", /loopback \(IPv4-mapped\)/],
      ["::ffff:10.0.0.1", /private \(IPv4-mapped\)/],
      ["0:0:0:0:0:ffff:a9fe:a9fe", /link-local .*IPv4-mapped/],
      ["64:ff9b::a00:1", /private \(NAT64\)/],
      ["64:ff9b:1::1", /local NAT64/],
      ["2002:a00:1::1", /private \(6to4\)/],
      ["not an address", /unparsable/],
    ];
    for (const [address, label] of cases) {
      const found = nonPublicRange(address);
      assert.ok(found, `${address} is public`);
      assert.match(found, label, address);
    }
  });

  it("passes public addresses", () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "11.0.0.1",
      "100.128.0.1",
      "172.32.0.1",
      "192.169.0.1",
      "223.255.255.255",
      "2606:4700:4700::1111",
      "2a00:1450:4001:82b::200e",
      "::ffff:8.8.8.8",
      "64:ff9b::808:808",
      "2002:808:808::1",
    ]) {
      assert.equal(nonPublicRange(address), null, address);
    }
  });
});

describe("contentDispositionFileName", () => {
  it("reads filename* first, then filename, and keeps only a base name", () => {
    assert.equal(contentDispositionFileName(`attachment; filename="a.pdf"`), "a.pdf");
    assert.equal(contentDispositionFileName("attachment; filename=b.txt"), "b.txt");
    assert.equal(
      contentDispositionFileName(`attachment; filename="x.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`),
      "résumé.pdf",
    );
    assert.equal(contentDispositionFileName(`inline; filename*=iso-8859-1'en'caf%E9.txt`), "café.txt");
    assert.equal(contentDispositionFileName(`attachment; filename="../../etc/passwd"`), "passwd");
    assert.equal(contentDispositionFileName(`attachment; filename="say \\"hi\\".txt"`), `say "hi".txt`);
    assert.equal(contentDispositionFileName(`attachment; filename=".."`), undefined);
    assert.equal(contentDispositionFileName("inline"), undefined);
    assert.equal(contentDispositionFileName(undefined), undefined);
  });
});

describe("fetchPublicUrl", () => {
  let server: LoopbackServer;
  let net: ReturnType<typeof keepTrafficOnLoopback>;
  const limits = { maxBytes: 1000, timeoutMs: 5000 } satisfies Partial<FetchPublicUrlOptions>;
  const allowed = { ...limits, allowPrivate: allowLoopback };

  before(async () => {
    net = keepTrafficOnLoopback();
    server = await startLoopbackServer((request, response) => {
      const path = request.url ?? "/";
      const redirect = (location: string, status = 302) => response.writeHead(status, { location }).end();
      const chain = /^\/chain\/(\d+)$/.exec(path);
      if (chain && Number(chain[1]) > 0) return redirect(`/chain/${Number(chain[1]) - 1}`, 307);
      switch (path) {
        case "/file.pdf":
        case "/chain/0":
          return response
            .writeHead(200, { "content-type": "Application/PDF; charset=binary" })
            .end("%PDF-1.4 hi");
        case "/named":
          return response
            .writeHead(200, {
              "content-type": "text/plain",
              "content-disposition": "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.txt",
            })
            .end("hello");
        case "/host":
          return response.writeHead(200, { "content-type": "text/plain" }).end(request.headers.host);
        case "/exactly-1000":
          return response.writeHead(200).end(Buffer.alloc(1000, 97));
        case "/declared-1001":
          return response.writeHead(200, { "content-length": "1001" }).end(Buffer.alloc(1001, 97));
        case "/streamed-5000": {
          response.writeHead(200, { "content-type": "text/plain" });
          for (let i = 0; i < 50; i++) response.write(Buffer.alloc(100, 98));
          return response.end();
        }
        case "/slow":
          response.writeHead(200, { "content-type": "text/plain" });
          response.write("a little, then nothing");
          return;
        case "/loop":
          return redirect("/loop");
        case "/ping":
          return redirect("/pong", 301);
        case "/pong":
          return redirect("/ping", 308);
        case "/to-private":
          return redirect("http://10.1.2.3/secret");
        case "/to-metadata":
          return redirect("http://169.254.169.254/latest/meta-data/iam/");
        case "/to-evil":
          return redirect("http://evil.example/x");
        case "/to-v6-loopback":
          return redirect(`http://[::1]:${server.port}/file.pdf`);
        case "/to-file":
          return redirect("file:///etc/passwd");
        case "/to-nowhere":
          return response.writeHead(302).end();
        default:
          return response.writeHead(404).end("no");
      }
    });
  });
  after(async () => {
    await server?.close();
    net?.remove();
    assert.deepEqual(net.stopped, [], "traffic tried to leave loopback");
  });

  it("fetches from loopback when the test hook allows it, and refuses the same URL without it", async () => {
    const fetched = await fetchPublicUrl(`${server.url}/file.pdf`, allowed);
    assert.equal(Buffer.from(fetched.bytes).toString(), "%PDF-1.4 hi");
    assert.equal(fetched.mimeType, "application/pdf");
    assert.equal(fetched.fileName, "file.pdf");
    assert.equal(fetched.finalUrl, `${server.url}/file.pdf`);

    const seen = server.requests.length;
    await rejectsWith(
      fetchPublicUrl(`${server.url}/file.pdf`, limits),
      "blocked_address",
      /^file_url points to a loopback address \(127\.0\.0\.1\)$/,
    );
    assert.equal(server.requests.length, seen, "the refused fetch reached the server");
  });

  it("takes the file name from Content-Disposition", async () => {
    const fetched = await fetchPublicUrl(`${server.url}/named`, allowed);
    assert.equal(fetched.fileName, "résumé.txt");
    assert.equal(fetched.mimeType, "text/plain");
  });

  it("refuses literal non-public addresses in every spelling before resolving or connecting", async () => {
    const lookup = tableLookup({});
    const seen = server.requests.length;
    const port = server.port;
    for (const [url, address] of [
      [`http://127.0.0.1:${port}/file.pdf`, "127.0.0.1"],
      [`http://2130706433:${port}/file.pdf`, "127.0.0.1"],
      [`http://0x7f.1:${port}/file.pdf`, "127.0.0.1"],
      [`http://0177.0.0.1:${port}/file.pdf`, "127.0.0.1"],
      [`http://[::1]:${port}/file.pdf`, "::1"],
      [`http://[::ffff:127.0.0.1]:${port}/file.pdf`, "::ffff:7f00:1"],
      ["http://[::ffff:10.0.0.1]/", "::ffff:a00:1"],
      ["http://10.0.0.5/doc.pdf", "10.0.0.5"],
      ["https://192.168.0.1/doc.pdf", "192.168.0.1"],
      ["http://172.20.1.1:8080/doc.pdf", "172.20.1.1"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
      ["http://100.100.100.200/latest/meta-data/", "100.100.100.200"],
      ["http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254"],
      ["http://[fe80::1]/", "fe80::1"],
      ["http://0/", "0.0.0.0"],
    ]) {
      await rejectsWith(
        fetchPublicUrl(url, { ...limits, lookup }),
        "blocked_address",
        new RegExp(`^file_url points to .* address \\(${address.replace(/[.]/g, "\\.")}\\)$`),
      );
    }
    assert.deepEqual(lookup.calls, []);
    assert.equal(server.requests.length, seen);
  });

  it("refuses a public-looking name that resolves to a non-public address, at connect time", async () => {
    const lookup = tableLookup({
      "evil.example": "10.1.2.3",
      "public.example": "127.0.0.1",
      "mixed.example": ["127.0.0.1", "10.0.0.1"],
      "metadata.example": "169.254.169.254",
      "v6.example": "::1",
    });
    const seen = server.requests.length;
    const port = server.port;
    await rejectsWith(
      fetchPublicUrl("http://evil.example/doc.pdf", { ...limits, lookup }),
      "blocked_address",
      /^file_url host evil\.example resolves to a private address \(10\.1\.2\.3\)$/,
    );
    await rejectsWith(
      fetchPublicUrl("https://metadata.example/", { ...limits, lookup }),
      "blocked_address",
      /metadata\.example resolves to a link-local .*\(169\.254\.169\.254\)/,
    );
    await rejectsWith(
      fetchPublicUrl(`http://public.example:${port}/file.pdf`, { ...limits, lookup }),
      "blocked_address",
      /public\.example resolves to a loopback address \(127\.0\.0\.1\)/,
    );
    await rejectsWith(
      fetchPublicUrl(`http://v6.example:${port}/file.pdf`, { ...limits, lookup }),
      "blocked_address",
      /v6\.example resolves to .*\(::1\)/,
    );
    // One non-public address among several refuses the name, even when the others are allowed.
    await rejectsWith(
      fetchPublicUrl(`http://mixed.example:${port}/file.pdf`, { ...allowed, lookup }),
      "blocked_address",
      /mixed\.example resolves to a private address \(10\.0\.0\.1\)/,
    );
    assert.equal(server.requests.length, seen);

    // The socket connects to the address the lookup gave: the name reaches the loopback server when allowed.
    const fetched = await fetchPublicUrl(`http://public.example:${port}/host`, { ...allowed, lookup });
    assert.equal(Buffer.from(fetched.bytes).toString(), `public.example:${port}`);
  });

  it("follows redirects and checks every hop", async () => {
    const fetched = await fetchPublicUrl(`${server.url}/chain/3`, allowed);
    assert.equal(Buffer.from(fetched.bytes).toString(), "%PDF-1.4 hi");
    assert.equal(fetched.finalUrl, `${server.url}/chain/0`);
    assert.equal(fetched.fileName, "0");

    const lookup = tableLookup({ "evil.example": "10.9.8.7" });
    const seen = server.requests.length;
    await rejectsWith(
      fetchPublicUrl(`${server.url}/to-private`, allowed),
      "blocked_address",
      /^file_url redirects to a private address \(10\.1\.2\.3\)$/,
    );
    await rejectsWith(
      fetchPublicUrl(`${server.url}/to-metadata`, allowed),
      "blocked_address",
      /^file_url redirects to a link-local .*\(169\.254\.169\.254\)$/,
    );
    await rejectsWith(
      fetchPublicUrl(`${server.url}/to-evil`, { ...allowed, lookup }),
      "blocked_address",
      /^file_url redirects to host evil\.example, which resolves to a private address \(10\.9\.8\.7\)$/,
    );
    await rejectsWith(
      fetchPublicUrl(`${server.url}/to-v6-loopback`, { ...allowed, allowPrivate: (a) => a === "127.0.0.1" }),
      "blocked_address",
      /^file_url redirects to .*\(::1\)$/,
    );
    await rejectsWith(
      fetchPublicUrl(`${server.url}/to-file`, allowed),
      "invalid_url",
      /must use http or https, not file/,
    );
    await rejectsWith(fetchPublicUrl(`${server.url}/to-nowhere`, allowed), "redirect", /without a Location/);
    // Only the redirecting hops reached the server.
    assert.equal(server.requests.length, seen + 6);
  });

  it("stops redirect loops and long chains", async () => {
    await rejectsWith(fetchPublicUrl(`${server.url}/loop`, allowed), "redirect", /redirects in a loop/);
    await rejectsWith(fetchPublicUrl(`${server.url}/ping`, allowed), "redirect", /redirects in a loop/);
    await rejectsWith(
      fetchPublicUrl(`${server.url}/chain/3`, { ...allowed, maxRedirects: 2 }),
      "redirect",
      /redirects more than 2 times/,
    );
  });

  it("enforces the size limit on Content-Length and on the bytes streamed", async () => {
    assert.equal((await fetchPublicUrl(`${server.url}/exactly-1000`, allowed)).bytes.length, 1000);
    await rejectsWith(
      fetchPublicUrl(`${server.url}/declared-1001`, allowed),
      "too_large",
      /^file_url is larger than the limit of 1000 bytes$/,
    );
    await rejectsWith(fetchPublicUrl(`${server.url}/streamed-5000`, allowed), "too_large");
    await rejectsWith(
      fetchPublicUrl(`${server.url}/streamed-5000`, { ...allowed, maxBytes: 4096 }),
      "too_large",
      /limit of 4 KiB/,
    );
  });

  it("gives up after the total timeout", async () => {
    const started = Date.now();
    await rejectsWith(
      fetchPublicUrl(`${server.url}/slow`, { ...allowed, timeoutMs: 300 }),
      "timeout",
      /^file_url did not finish downloading within 300 ms$/,
    );
    assert.ok(Date.now() - started < 3000);
  });

  it("refuses other schemes, credentials and malformed URLs", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://example.com/a.pdf",
      "gopher://127.0.0.1:6379/_INFO",
      "data:text/plain,hello",
      "javascript:alert(1)",
    ]) {
      await rejectsWith(fetchPublicUrl(url, limits), "invalid_url", /must use http or https/);
    }
    await rejectsWith(
      fetchPublicUrl(`http://user:secret@127.0.0.1:${server.port}/file.pdf`, allowed),
      "invalid_url",
      /must not carry credentials/,
    );
    await rejectsWith(fetchPublicUrl("not a url", limits), "invalid_url", /is not a valid URL/);
  });

  it("reports HTTP errors, unknown names and refused connections", async () => {
    await rejectsWith(
      fetchPublicUrl(`${server.url}/missing`, allowed),
      "http_status",
      /^file_url answered HTTP 404 Not Found$/,
    );
    await rejectsWith(
      fetchPublicUrl("http://nowhere.example/a.pdf", { ...limits, lookup: tableLookup({}) }),
      "dns",
      /^file_url host nowhere\.example does not resolve$/,
    );
    const closed = await startLoopbackServer(() => {});
    await closed.close();
    await rejectsWith(
      fetchPublicUrl(`${closed.url}/a.pdf`, allowed),
      "connection",
      new RegExp(`127\\.0\\.0\\.1:${closed.port} refused the connection`),
    );
  });
});
