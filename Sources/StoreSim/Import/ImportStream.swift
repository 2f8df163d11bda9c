/// One file of Apple's data read in pieces, so a webhook log of any size imports in bounded
/// memory: only the line being read is held, never the file.
///
/// A file is one of two kinds, decided by its first line that is not blank:
/// - that line is JSON by itself: the file is read a line at a time (a webhook log, or pages a
///   line each); a file of that one line only is read as a document (its problems name no line);
/// - it is not: the file is one document (a response printed over several lines, or pages as
///   a JSON array), held whole and read at the end (one response is a page of Apple's: small).
struct ImportStream {
  let name: String
  /// The bytes after the last whole line (lines), or all so far (a document).
  private var pending: [UInt8] = []
  private var kind = Kind.undecided
  /// The number of the last whole line taken from `pending`.
  private var lineNumber = 0
  /// Where the next line in `pending` starts.
  private var scanned = 0
  /// The first line, parsed, held until a second shows the file is more than that line.
  private var first: (node: JSONNode, number: Int)?

  private enum Kind { case undecided, lines, document }

  init(name: String) { self.name = name }

  /// The bytes held now: at most a line and a piece once the file is known to be lines.
  var held: Int { pending.count }

  static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
    line.allSatisfy { $0 == 32 || $0 == 9 || $0 == 13 }
  }

  /// The next piece of the file.
  mutating func feed(_ bytes: ArraySlice<UInt8>, into reader: inout AppleDataReader) {
    pending.append(contentsOf: bytes)
    while kind != .document, let newline = pending[scanned...].firstIndex(of: 10) {
      take(pending[scanned..<newline], into: &reader)
      scanned = newline + 1
    }
    // Lines taken are dropped; until the kind is known they are kept (a document needs them).
    if kind == .lines {
      pending.removeSubrange(..<scanned)
      scanned = 0
    }
  }

  /// The end of the file.
  mutating func end(into reader: inout AppleDataReader) {
    if kind != .document, scanned < pending.count {
      take(pending[scanned...], into: &reader)
    }
    switch kind {
    case .document: reader.readDocument(pending, file: name)
    case .lines, .undecided:
      if let first { reader.readDocument(first.node, file: name) }
    }
    pending = []
    scanned = 0
    first = nil
  }

  /// One whole line (without its newline).
  private mutating func take(_ line: ArraySlice<UInt8>, into reader: inout AppleDataReader) {
    lineNumber += 1
    if Self.isBlank(line) { return }
    switch kind {
    case .document: return
    case .undecided:
      guard let node = try? JSONParser.parse(line) else {
        // Not JSON by itself: the file is one document; keep everything from its start.
        kind = .document
        return
      }
      kind = .lines
      first = (node, lineNumber)
    case .lines:
      if let held = first {
        reader.readLine(held.node, number: held.number, file: name)
        first = nil
      }
      reader.readLine(line, number: lineNumber, file: name)
    }
  }
}
