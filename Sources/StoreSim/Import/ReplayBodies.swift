/// The request bodies `notifications replay FILE` posts, read from a webhook log or a Get
/// Notification History response (docs/import.md): pure, bytes in, bodies or the first problem
/// out.
///
/// - A webhook log (one `{"signedPayload": "..."}` a line): each line that is not blank is a
///   body, its bytes as they are (without the line's end, `\n` or `\r\n`).
/// - A Get Notification History response (a page, pages as a JSON array, or one page a line):
///   each `notificationHistory[].signedPayload` is a body, `{"signedPayload":"<JWS>"}`, as Apple
///   posted it (the response does not hold the bytes of the request, only its JWS).
/// - A file that is one `{"signedPayload": "..."}`: the file is the body, without the blank
///   space around it.
package enum ReplayBodies {
  /// One body to post: where it came from (`line 3`, `notificationHistory[2]`) and its bytes.
  package struct Body: Sendable, Equatable {
    package var item: String
    package var bytes: [UInt8]

    /// A body.
    package init(item: String, bytes: [UInt8]) {
      self.item = item
      self.bytes = bytes
    }
  }

  /// The bodies of a file, in its order, or the first thing wrong with it.
  package static func read(_ bytes: [UInt8], file: String) throws(ImportFailure) -> [Body] {
    let trimmed = trim(bytes[...])
    guard !trimmed.isEmpty else { throw problem(file: file, item: "", message: "is empty") }
    var bodies: [Body] = []
    var lines: [(number: Int, bytes: ArraySlice<UInt8>)] = []
    var number = 0
    var start = bytes.startIndex
    while start < bytes.endIndex {
      let end = bytes[start...].firstIndex(of: 10) ?? bytes.endIndex
      number += 1
      var line = bytes[start..<end]
      if line.last == 13 { line = line.dropLast() }
      if !ImportStream.isBlank(line) { lines.append((number, line)) }
      start = end + 1
    }
    // One document over several lines (a response printed pretty, or pages as an array).
    if lines.count > 1, (try? JSONParser.parse(lines[0].bytes)) == nil {
      guard let node = try? JSONParser.parse(trimmed) else {
        throw problem(file: file, item: "", message: "is not JSON, a webhook log or a response")
      }
      try add(node, raw: trimmed, file: file, item: "", into: &bodies)
    } else {
      for line in lines {
        let node: JSONNode
        do { node = try JSONParser.parse(line.bytes) } catch {
          throw problem(file: file, item: "line \(line.number)", message: "is not JSON (\(error.message))")
        }
        try add(node, raw: line.bytes, file: file, item: lines.count == 1 ? "" : "line \(line.number)", into: &bodies)
      }
    }
    guard !bodies.isEmpty else {
      throw problem(file: file, item: "", message: "holds no notification (no signedPayload)")
    }
    return bodies
  }

  private static func problem(file: String, item: String, message: String) -> ImportFailure {
    ImportFailure(problems: [ImportProblem(file: file, item: item, message: message)])
  }

  private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    func blank(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 10 || b == 13 }
    guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
    else { return bytes[bytes.startIndex..<bytes.startIndex] }
    return bytes[first...last]
  }

  /// A request body as it was, or a Get Notification History page (or pages) made bodies.
  private static func add(
    _ node: JSONNode, raw: ArraySlice<UInt8>, file: String, item: String, into bodies: inout [Body]
  ) throws(ImportFailure) {
    func place(_ inner: String) -> String { item.isEmpty ? inner : "\(item): \(inner)" }
    if case .array(let pages) = node.value {
      for (i, page) in pages.enumerated() {
        guard let history = page["notificationHistory"] else {
          throw problem(file: file, item: place("[\(i)]"), message: "is not a Get Notification History page")
        }
        try add(history: history, file: file, item: place("[\(i)]"), into: &bodies)
      }
    } else if case .string = node["signedPayload"]?.value {
      bodies.append(Body(item: item.isEmpty ? "signedPayload" : item, bytes: Array(raw)))
    } else if let history = node["notificationHistory"] {
      try add(history: history, file: file, item: item, into: &bodies)
    } else {
      throw problem(
        file: file, item: item, message: "is not a notification body ({\"signedPayload\": ...}) or notification history"
      )
    }
  }

  private static func add(
    history: JSONNode, file: String, item: String, into bodies: inout [Body]
  ) throws(ImportFailure) {
    guard case .array(let entries) = history.value else {
      throw problem(file: file, item: item, message: "notificationHistory is not a list")
    }
    for (i, entry) in entries.enumerated() {
      let place = (item.isEmpty ? "" : item + ": ") + "notificationHistory[\(i)]"
      guard case .string(let jws) = entry["signedPayload"]?.value else {
        throw problem(file: file, item: place, message: "has no signedPayload")
      }
      bodies.append(Body(item: place, bytes: body(jws)))
    }
  }

  /// `{"signedPayload":"<JWS>"}`, the body Apple posts.
  package static func body(_ jws: String) -> [UInt8] {
    var bytes = Array(#"{"signedPayload":"#.utf8)
    JSONString.write(jws, escaping: .required, into: &bytes)
    bytes.append(UInt8(ascii: "}"))
    return bytes
  }
}
