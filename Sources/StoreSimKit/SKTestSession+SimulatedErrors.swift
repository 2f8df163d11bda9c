import StoreSim

// StoreKitTest's simulated errors: a StoreKit API made to fail on purpose (Xcode 15+).
extension SKTestSession {
  /// Makes every later call of a StoreKit API fail with `error`; nil clears it.
  public func setSimulatedError<API: FailableStoreKitAPI>(_ error: API.Failure?, forAPI api: API) async throws {
    core.updateSettings { $0.setSimulatedError(error.map(API.simulated), forAPI: api.engineAPI) }
  }

  /// The error set for an API, as its engine name (`family.case`), or nil.
  public func simulatedErrorName<API: FailableStoreKitAPI>(forAPI api: API) async -> String? {
    core.read { $0.settings.simulatedError(forAPI: api.engineAPI)?.description }
  }
}
