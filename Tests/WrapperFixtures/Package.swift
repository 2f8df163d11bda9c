// swift-tools-version: 6.0
// Wrapper code written the way apps' StoreKit helpers are, compiled and tested on Linux against
// storesim's `StoreKit` and `StoreKitTest` modules with its sources unchanged (they say
// `import StoreKit`). CI runs `swift test --package-path Tests/WrapperFixtures`; storesim's own
// `swift test` never compiles this folder (it is no target of storesim's).
import PackageDescription

let storeKit = Target.Dependency.product(name: "StoreKit", package: "storesim", condition: .when(platforms: [.linux]))
let storeKitTest = Target.Dependency.product(
  name: "StoreKitTest", package: "storesim", condition: .when(platforms: [.linux]))

let package = Package(
  name: "WrapperFixtures",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "storesim", path: "../..")],
  targets: [
    // A StoreKit 1 helper, in the shape of the long-lived open-source ones.
    .target(name: "LegacyIAP", dependencies: [storeKit]),
    // A StoreKit 2 helper: a shared store service caching products.
    .target(name: "ModernIAP", dependencies: [storeKit]),
    .testTarget(
      name: "LegacyIAPTests", dependencies: ["LegacyIAP", storeKitTest], resources: [.copy("Products.storekit")]),
    .testTarget(
      name: "ModernIAPTests", dependencies: ["ModernIAP", storeKitTest], resources: [.copy("Products.storekit")]),
    // A StoreKit 1 controller in SwiftyStoreKit's shape, in the Swift 6 language mode: a plain
    // NSObject observer that adds itself to `SKPaymentQueue.default()` in a nonisolated `init`.
    .target(name: "SwiftyShapedIAP", dependencies: [storeKit], swiftSettings: [.swiftLanguageMode(.v6)]),
    .testTarget(
      name: "SwiftyShapedIAPTests", dependencies: ["SwiftyShapedIAP", storeKitTest],
      resources: [.copy("Products.storekit")]),
    // An app's store in the shape of Apple's sample "Implementing a store in your app using the
    // StoreKit API": a `Transaction.updates` listener started in `init` with `Task.detached` and
    // never cancelled; its tests make a new session and a new store per test.
    .target(name: "SampleShapedStore", dependencies: [storeKit]),
    .testTarget(
      name: "SampleShapedStoreTests", dependencies: ["SampleShapedStore", storeKitTest],
      resources: [.copy("Products.storekit")]),
  ],
  // Written as such helpers were, before Swift 6's data-race checks.
  swiftLanguageModes: [.v5]
)
