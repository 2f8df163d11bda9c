import Foundation

/// One line of the MCP server's input: its text, or `tooLong` for a line past the cap (read to
/// its end and dropped, never held whole).
enum InputLine: Equatable, Sendable {
  case text(String)
  case tooLong

  /// The longest line (one JSON-RPC message) the MCP server reads: 16 MiB.
  static let limit = 16 << 20

  /// `line` as it would be read under `limit`.
  init(_ line: String, limit: Int) {
    self = line.utf8.count > limit ? .tooLong : .text(line)
  }
}

/// Standard input a line at a time, holding at most `limit` bytes of a line: the rest of a
/// longer line is read and dropped as it comes (a client that sends gigabytes without a newline
/// costs the server no memory).
final class LimitedLineReader: @unchecked Sendable {
  private let descriptor: Int32
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)
  private var pending: ArraySlice<UInt8> = []
  private var ended = false

  init(descriptor: Int32 = STDIN_FILENO) { self.descriptor = descriptor }

  /// The next line (without its newline), `tooLong`, or nil at the end of input.
  func next(limit: Int) -> InputLine? {
    var line: [UInt8] = []
    var tooLong = false
    while true {
      if let newline = pending.firstIndex(of: 0x0A) {
        take(pending[..<newline], into: &line, limit: limit, tooLong: &tooLong)
        pending = pending[(newline + 1)...]
        break
      }
      take(pending, into: &line, limit: limit, tooLong: &tooLong)
      pending = []
      if ended || !fill() {
        if line.isEmpty && !tooLong { return nil }
        break
      }
    }
    return tooLong ? .tooLong : .text(String(decoding: line, as: UTF8.self))
  }

  private func take(_ bytes: ArraySlice<UInt8>, into line: inout [UInt8], limit: Int, tooLong: inout Bool) {
    guard !tooLong else { return }
    if line.count + bytes.count > limit {
      tooLong = true
      line = []
    } else {
      line += bytes
    }
  }

  /// Reads what standard input has; false at its end.
  private func fill() -> Bool {
    while true {
      let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if n > 0 {
        pending = chunk[..<n]
        return true
      }
      if n < 0 && errno == EINTR { continue }
      ended = true
      return false
    }
  }
}
