// libFuzzer target: the session file reader (versions 1 to 3, the outbox read or skipped). A
// file it accepts must write back as the current version and read back to the same state.
// Built by Scripts/fuzz.sh into the one fuzz binary.
import Foundation

public func fuzzSession(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Data(bytes: data, count: size)
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
