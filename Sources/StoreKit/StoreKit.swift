// `import StoreKit` on Linux: StoreSimKit under the name of Apple's framework, so code written
// for Apple's StoreKit compiles unchanged, `StoreKit.Product`-qualified names included. As
// Apple's StoreKit does, it brings Foundation with it, and with it URLSession and URLRequest
// (in Foundation on Apple's platforms, in FoundationNetworking on Linux). Linux only: on Apple's
// platforms a package depends on this product with `condition: .when(platforms: [.linux])`, so
// the name `StoreKit` stays Apple's there (see docs/storekit-on-linux.md).
@_exported import Foundation
@_exported import StoreSimKit

#if canImport(FoundationNetworking)
  @_exported import FoundationNetworking
#endif
