import Foundation
import StoreSim
import StoreSimSync

/// Where StoreSimKit writes what it has to say outside the API (configuration warnings, a
/// hint printed once): standard error, or a test's listener.
enum KitDiagnostics {
  /// A listener that takes the text instead of standard error (tests).
  static let listener = Mutex<(@Sendable (String) -> Void)?>(nil)

  /// Writes `text` (ending in a newline) to the listener or standard error.
  static func write(_ text: String) {
    if let listen = listener.current {
      listen(text)
    } else {
      FileHandle.standardError.write(Data(text.utf8))
    }
  }
}
