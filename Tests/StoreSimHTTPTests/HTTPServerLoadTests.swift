import Foundation
import Testing

@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport

/// The server under many clients: a thousand kept-alive connections, clients that dribble
/// their header, connections past the limit, a handler that takes its time.
@Suite struct HTTPServerLoadTests {
  typealias Running = HTTPServerTests.Running
  typealias Client = HTTPServerTests.Client

  /// Client and server ends of 1,000 connections live in this one process.
  static let enoughFiles = FileLimit.raise() >= 2_200

  @Test func theOpenFilesAreCountedByTheNamesOfTheirFolder() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storesim-files-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Names of every length, so entries end at every offset of the directory's buffer.
    for i in 0..<600 {
      let name = String(i) + String(repeating: "x", count: i % 200)
      try Data().write(to: folder.appendingPathComponent(name))
    }
    try Data().write(to: folder.appendingPathComponent(".hidden"))
    #expect(FileLimit.entries(in: folder.path) == 600)
    #expect(FileLimit.entries(in: folder.appendingPathComponent("absent").path) == nil)
    #expect(FileLimit.inUse() > 2)
  }

  @Test(.enabled(if: enoughFiles, "the file limit (RLIMIT_NOFILE) is below 2,200"))
  func aThousandConnectionsAreHeldOpenAndAllAnswered() throws {
    let running = try Running(handler: HTTPServerTests.echo)
    defer { running.stop() }
    let clients = try (0..<1_000).map { _ in try Client(port: running.server.port) }
    // Every connection asks before any is read: all thousand are open at once.
    for round in 0..<2 {
      for (i, c) in clients.enumerated() { c.send("GET /\(round)/\(i) HTTP/1.1\r\nHost: x\r\n\r\n") }
      var answered = 0
      for (i, c) in clients.enumerated() {
        let answer = c.response()
        if answer?.status == 200, answer?.body.contains("\"/\(round)/\(i)\"") == true,
          answer?.headers["connection"] == "keep-alive"
        {
          answered += 1
        }
      }
      #expect(answered == 1_000, "round \(round)")
    }
    #expect(running.logBox.lock.withLock { running.logBox.lines.count } == 2_000)
  }

  @Test func clientsDribblingTheirHeadersDoNotHoldUpOthers() throws {
    // One worker: a slow client that held it would stop everyone.
    let running = try HTTPServerTests.echoServer { $0.workers = 1 }
    defer { running.stop() }
    let slow = try (0..<50).map { _ in try Client(port: running.server.port) }
    for (i, c) in slow.enumerated() { c.send("GET /slow/\(i) HTTP/1.1\r\nHost: ") }
    for i in 0..<10 {
      let quick = try Client(port: running.server.port)
      quick.send("GET /quick/\(i) HTTP/1.1\r\n\r\n")
      #expect(quick.response()?.body.contains("\"/quick/\(i)\"") == true)
    }
    // The slow ones finish a byte at a time and are answered too.
    for c in slow { for byte in "x\r\nA: b\r\n\r\n" { c.send(String(byte)) } }
    for (i, c) in slow.enumerated() { #expect(c.response()?.body.contains("\"/slow/\(i)\"") == true) }
  }

  @Test func connectionsPastTheLimitWaitInsteadOfBeingRefused() throws {
    let running = try HTTPServerTests.echoServer { $0.connections = 4 }
    defer { running.stop() }
    var first = try (0..<4).map { _ in try Client(port: running.server.port) }
    for c in first {
      c.send("GET /held HTTP/1.1\r\n\r\n")
      #expect(c.response()?.status == 200)
    }
    // The fifth connects (the kernel queues it) and asks; it is answered once one of the
    // first four closes, not refused.
    let fifth = try Client(port: running.server.port)
    fifth.send("GET /fifth HTTP/1.1\r\n\r\n")
    first.removeFirst()
    let answer = fifth.response()
    #expect(answer?.status == 200)
    #expect(answer?.body.contains("\"/fifth\"") == true)
  }

  @Test func aSlowHandlerHoldsOneWorkerOnly() throws {
    let gate = DispatchSemaphore(value: 0)
    let running = try Running(
      limits: {
        var limits = HTTPServer.Limits()
        limits.workers = 2
        return limits
      }(),
      handler: { request in
        if request.path == "/wait" { gate.wait() }
        return HTTPServerTests.echo(request)
      })
    defer { running.stop() }
    let waiting = try Client(port: running.server.port)
    waiting.send("GET /wait HTTP/1.1\r\n\r\n")
    for i in 0..<20 {
      let other = try Client(port: running.server.port)
      other.send("GET /other/\(i) HTTP/1.1\r\n\r\n")
      #expect(other.response()?.status == 200)
    }
    gate.signal()
    #expect(waiting.response()?.body.contains("\"/wait\"") == true)
  }
}
