// libFuzzer target: the HTTP request parser (the one header grammar, `HTTPHead`, then the
// request line, then the request target's path and query). Whatever the bytes, parsing ends
// without a crash, and a head that parses has no field name with white space or upper case.
// Built by Scripts/fuzz.sh into the one fuzz binary.
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
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
