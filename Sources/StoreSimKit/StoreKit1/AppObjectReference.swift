/// An object the app hands StoreKit 1 (a payment queue observer, a request's or the queue's
/// delegate), as the queue and the requests keep it: compared by identity on any thread, and
/// called only through `onMainActor`, so the compiler checks that every callback runs on the
/// main actor, where StoreKit calls observers and delegates.
///
/// `@unchecked Sendable` because StoreKit's API takes these objects, which are not `Sendable`,
/// on any thread (`add(_:)`, `delegate =`, both nonisolated and without `sending`, so that
/// observers made in a nonisolated `init` keep compiling) and calls them on the main thread:
/// the compiler cannot follow that hand-over. What guarantees it: the object is reached only on
/// the main actor (`onMainActor`), or handed back unchanged to the app by the getters StoreKit
/// has (`transactionObservers`, `delegate`); elsewhere it is only compared by identity.
struct AppObjectReference<Object>: @unchecked Sendable {
  private let strong: AnyObject?
  private weak var weakly: AnyObject?

  /// Keeps `object` strongly, or weakly (as StoreKit keeps delegates).
  init(_ object: Object, weakly: Bool) {
    let reference = object as AnyObject
    strong = weakly ? nil : reference
    self.weakly = reference
  }

  /// The object, for a callback (nil once a weakly kept object is gone).
  @MainActor var onMainActor: Object? { (strong ?? weakly) as? Object }

  /// The object, for StoreKit's getters, which give the app its own object back.
  var handedBack: Object? { (strong ?? weakly) as? Object }

  func refers(to object: AnyObject) -> Bool { (strong ?? weakly) === object }

  var identity: ObjectIdentifier? { (strong ?? weakly).map(ObjectIdentifier.init) }
}
