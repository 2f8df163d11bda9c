import Foundation
import Testing

@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimServer

/// A delivery URL given on the command line is read as the client reads it, or refused with a
/// usage error that says why.
@Suite struct DeliveryURLArgumentTests {
  @Test(arguments: [
    ("HTTP://127.0.0.1:8080/x", "127.0.0.1", 8080, "/x", "127.0.0.1:8080"),
    ("http://[::1]:8080/", "::1", 8080, "/", "[::1]:8080"),
    ("http://[::1]", "::1", 80, "/", "[::1]"),
    ("https://example.com/n?a=1&b=%20", "example.com", 443, "/n?a=1&b=%20", "example.com"),
    ("http://localhost?q", "localhost", 80, "/?q", "localhost"),
    ("hTtPs://Host-1.example:65535", "Host-1.example", 65535, "/", "Host-1.example:65535"),
  ])
  func acceptedURLs(text: String, host: String, port: Int, target: String, hostHeader: String) throws {
    let url = try HTTPURL(text)
    #expect(url.host == host)
    #expect(url.port == port)
    #expect(url.target == target)
    #expect(url.hostHeader == hostHeader)
    #expect(try Delivery.validate(text, command: "settings") == text)
  }

  @Test(arguments: [
    ("http://127.0.0.1:99999/", "invalid port 99999"),
    ("http://127.0.0.1:0/", "invalid port 0"),
    ("http://127.0.0.1:80a/", "invalid port '80a'"),
    ("http://127.0.0.1:/", "empty port"),
    ("ftp://x", "unsupported scheme 'ftp'"),
    ("mailto:a@b.c", "unsupported scheme 'mailto'"),
    ("127.0.0.1:8080/x", "missing scheme"),
    ("http:/x", "missing '//'"),
    ("http://", "missing host"),
    ("http:///path", "missing host"),
    ("http://exa mple.com/", "whitespace"),
    ("http://127.0.0.1:8080/a b", "whitespace"),
    (" http://127.0.0.1/", "whitespace"),
    ("http://127.0.0.1/\n", "whitespace"),
    ("http://127.0.0.1/\u{7}", "control character"),
    ("http://127.0.0.1/é", "non-ASCII"),
    ("http://user:pw@127.0.0.1/", "userinfo"),
    ("http://127.0.0.1/#top", "fragment"),
    ("http://::1/", "must be in brackets"),
    ("http://[::1/", "missing ']'"),
    ("http://[::g]/", "invalid IPv6 address"),
    ("http://[::1]x/", "after the IPv6 literal"),
    ("http://256.1.1.1/", "invalid IPv4 address"),
    ("http://ho$t/", "invalid character '$'"),
    ("http://127.0.0.1/%zz", "percent-escape"),
    ("http://127.0.0.1/<x>", "percent-encoded"),
    ("", "empty URL"),
  ])
  func refusedURLs(text: String, reason: String) {
    do {
      _ = try Delivery.validate(text, command: "settings")
      Issue.record("'\(text)' was accepted")
    } catch let error as CLIError {
      #expect(error.code == .usage)
      #expect(error.message.contains(reason), "\(error.message)")
      #expect(!error.message.contains("\n"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }
}
