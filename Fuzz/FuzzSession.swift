// libFuzzer target: the session file reader (versions 1 to 3, the outbox read or skipped). A
// file it accepts must write back as the current version and read back to the same state, and
// its state line read with the customers' list in two halves (`StateCodec+HalvesForTheCLICallFigure`), wherever
// the list is said to end, must give what a reading in order gives: the same state or the same
// error. Built by Scripts/fuzz.sh into the one fuzz binary.
import Foundation

public func fuzzSession(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Data(bytes: data, count: size)
  checkHalves(UnsafeBufferPointer(start: data, count: size))
  for skipping in [false, true] {
    guard let (header, state) = try? SessionFileFormat.decode(bytes, skippingNotifications: skipping) else { continue }
    let again: Data
    do {
      again = try SessionFileFormat.encode(
        state, configurationPath: header.configurationPath, configurationDigest: header.configurationDigest)
    } catch {
      fatalError("an accepted session does not encode: \(error)")
    }
    let read: (SessionFileFormat.Header, StoreState)
    do {
      read = try SessionFileFormat.decode(again)
    } catch {
      fatalError("a session written back is refused: \(error)")
    }
    guard read.1 == state, read.0.configurationPath == header.configurationPath,
      read.0.configurationDigest == header.configurationDigest
    else { fatalError("a session written back reads back differently (skipping notifications: \(skipping))") }
  }
  return 0
}

/// The state line (after the first newline, or everything) read in order and in two halves.
private func checkHalves(_ file: UnsafeBufferPointer<UInt8>) {
  let line = UnsafeBufferPointer(rebasing: file[((file.firstIndex(of: 0x0A) ?? -1) + 1)...])
  func read(_ end: Int?, splitting: Int) -> Result<StoreState, StateCodec.DecodingError> {
    Result { () throws(StateCodec.DecodingError) in
      try StateCodec.read(
        line, skippingNotifications: false, outboxStart: end, splitting: splitting, waitingForHelper: true
      ).state
    }
  }
  let inOrder = read(nil, splitting: .max)
  for end in [line.count / 3, line.count / 2, line.count] {
    switch (inOrder, read(end, splitting: 1)) {
    case (.success(let a), .success(let b)) where a == b: continue
    case (.failure(let a), .failure(let b)) where a.description == b.description: continue
    case (let a, let b): fatalError("read in two halves (end \(end)): \(b), in order: \(a)")
    }
  }
}
