import Foundation

/// The App Store environment a session signs its data for (`AppStore.Environment`).
public enum StoreEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
  /// StoreKit Testing in Xcode (the default).
  case xcode = "Xcode"
  /// Apple's library's local-testing environment.
  case localTesting = "LocalTesting"
  /// The sandbox (renewals stop after 12, rule sandbox-stops-after-twelve-renewals).
  case sandbox = "Sandbox"
  /// The live App Store.
  case production = "Production"
}
