// libFuzzer target: the HTTP request parser (the one header grammar, `HTTPHead`, then the
// request line, then the request target's path and query). Whatever the bytes, parsing ends
// without a crash, and a head that parses has no field name with white space or upper case.
// The same bytes then go through a server connection's state (`HTTPConnectionState`).
// Built by Scripts/fuzz.sh into the one fuzz binary.
import Foundation

public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  fuzzConnectionState(bytes)
  let skip = HTTPHead.leadingEmptyLines(bytes)
  guard let (end, body) = HTTPHead.end(in: bytes, from: skip) else { return 0 }
  precondition(skip <= end && end < body && body <= bytes.count, "head bounds out of order")
  guard let head = HTTPHead(bytes[skip..<end]) else { return 0 }
  for name in head.fields.keys {
    precondition(!name.contains(" ") && !name.contains("\t"), "a field name with white space")
    precondition(name == name.lowercased(), "a field name not lowercased")
  }
  guard let request = RequestHead(head) else { return 0 }
  let parsed = HTTPRequest(
    method: request.method, target: request.target, headers: head.fields, body: Array(bytes[body...]))
  precondition(parsed.target.hasPrefix(parsed.path), "the path is not the start of the target")
  _ = parsed.value("x")
  return 0
}

/// The bytes as two reads of one connection, split where the first byte says: the connection's
/// state always comes to wanting more bytes or closing (no step without progress), hands over
/// only requests whose body is as long as their `Content-Length` says, one at a time, and
/// refuses with a 4xx or 5xx status.
private func fuzzConnectionState(_ bytes: [UInt8]) {
  var limits = HTTPServer.Limits()
  limits.headerBytes = 1024
  limits.bodyBytes = 4096
  var state = HTTPConnectionState(HTTPConnectionState.Configuration(limits), now: 0)
  let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
  var now: UInt64 = 1
  for part in [bytes[..<split], bytes[split...]] {
    state.receive(part, now: now)
    var steps = 0
    reading: while true {
      steps += 1
      precondition(steps < 100_000, "the connection state makes no progress")
      switch state.next(now: now) {
      case .write: state.wrote(state.withUnwritten { $0.count }, now: now)
      case .log(let answer): precondition(answer.status >= 400, "a refusal that is not an error")
      case .handle:
        guard let (request, head) = state.pending else { preconditionFailure("handle with no request") }
        let length = head.fields["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        precondition(request.body.count == length, "a body not as long as its Content-Length")
        _ = state.respond(HTTPResponse(status: 200, body: "{}"), now: now)
      case .read, .close: break reading
      }
    }
    now += 1
  }
}
