import Foundation
import StoreSimSignals

/// Ctrl-C in the shell: a flag the running command polls, instead of the default that ends the
/// process (the flag is `ProcessSignals.interrupted`; SIGTERM, SIGHUP and SIGQUIT restore the
/// terminal before ending it).
enum Interrupt {
  static var requested: Bool { ProcessSignals.interrupted != 0 }
  static func clear() { ProcessSignals.interrupted = 0 }
}
