// `import StoreKitTest` on Linux: the test controls (`SKTestSession`, `SKTestTransaction`,
// `SKTestError`, ...) under the name of Apple's framework, with StoreKit and Foundation, as
// Apple's StoreKitTest imports them. Linux only, as the `StoreKit` module (see
// docs/storekit-on-linux.md).
@_exported import Foundation
@_exported import StoreKit
