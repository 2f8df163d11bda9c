import StoreSimKit
import Testing

/// A Swift Testing trait that runs each test on a device of its own (`SKTestSession.isolated`):
/// the session a test creates at its top is the device-wide session of that test only, so tests
/// (and suites) with the trait run in parallel, with each other and with a serialized suite
/// that uses the process-wide device.
///
/// ```swift
/// @Suite(.isolatedTestSession) struct StoreTests {
///   @Test func buyingACar() async throws {
///     let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
///     ...
///   }
/// }
/// ```
public struct IsolatedTestSessionTrait: TestTrait, SuiteTrait, TestScoping {
  public init() {}

  /// On a suite, every test of it (and of its nested suites) gets its own device.
  public var isRecursive: Bool { true }

  /// A device per test case; a suite itself needs none.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await SKTestSession.isolated { try await function() }
  }
}

extension Trait where Self == IsolatedTestSessionTrait {
  /// Each test runs on a device of its own: see `IsolatedTestSessionTrait`.
  public static var isolatedTestSession: Self { Self() }
}
