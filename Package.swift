// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "storesim",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "storesim", targets: ["storesim"]),
    .library(name: "StoreSim", targets: ["StoreSim"]),
    .library(name: "StoreSimKit", targets: ["StoreSimKit"]),
    .library(name: "StoreSimKitTesting", targets: ["StoreSimKitTesting"]),
    // `import StoreKit` / `import StoreKitTest` on Linux (docs/storekit-on-linux.md).
    .library(name: "StoreKit", targets: ["StoreKit"]),
    .library(name: "StoreKitTest", targets: ["StoreKitTest"]),
  ],
  dependencies: [],
  targets: [
    // Mutex and Condition: locks that own the state they guard (for every module that shares state
    // between threads; the pure core's only lock guards the signing identity's memo of its keys).
    .target(name: "StoreSimSync"),
    // The pure core: configuration, state, engine, virtual clock, Apple's wire shapes.
    .target(name: "StoreSim", dependencies: ["StoreSimSync"]),
    // The session file: its codec, integrity, atomic saves and locking.
    .target(name: "StoreSimSession", dependencies: ["StoreSim", "StoreSimSync"]),
    // HTTP/1.1 server and client on POSIX sockets; knows nothing of StoreKit.
    .target(name: "StoreSimHTTP", dependencies: ["StoreSimSync"]),
    // The App Store Server API as a route table, and notification delivery.
    .target(
      name: "StoreSimServer", dependencies: ["StoreSim", "StoreSimSession", "StoreSimHTTP", "StoreSimSync"]),
    // The command line: commands, scenarios, the shell, the terminal.
    .target(
      name: "StoreSimCLI",
      dependencies: ["StoreSim", "StoreSimSession", "StoreSimHTTP", "StoreSimServer", "StoreSimSync"]),
    // StoreKit 2's API over a session.
    .target(name: "StoreSimKit", dependencies: ["StoreSim", "StoreSimSession", "StoreSimSync"]),
    // The Swift Testing trait that gives each test its own StoreSimKit device.
    .target(name: "StoreSimKitTesting", dependencies: ["StoreSimKit"]),
    // StoreSimKit under Apple's module names, for code that says `import StoreKit` unchanged.
    .target(name: "StoreKit", dependencies: ["StoreSimKit"]),
    .target(name: "StoreKitTest", dependencies: ["StoreKit"]),
    .executableTarget(name: "storesim", dependencies: ["StoreSimCLI", "StoreSimSync"]),
    .executableTarget(name: "storesim-bench", dependencies: ["StoreSim", "StoreSimSession"]),
    // Test helpers (regular targets under Tests/, never shipped): the core's fixture catalogue and
    // the project root; a tiny HTTP peer and a blocking client for the HTTP and server tests.
    .target(name: "StoreSimTestSupport", dependencies: ["StoreSim"], path: "Tests/StoreSimTestSupport"),
    .target(
      name: "StoreSimHTTPTestSupport", dependencies: ["StoreSimHTTP", "StoreSimSync"],
      path: "Tests/StoreSimHTTPTestSupport"),
    // The App Store Server API called as a pure function, for the server's and the CLI's tests.
    .target(
      name: "StoreSimServerTestSupport",
      dependencies: ["StoreSim", "StoreSimHTTP", "StoreSimServer", "StoreSimTestSupport"],
      path: "Tests/StoreSimServerTestSupport"),
    // One test target per module, each testing its module through its own API (docs/tests.md).
    .testTarget(name: "StoreSimSyncTests", dependencies: ["StoreSimSync"]),
    .testTarget(name: "StoreSimCoreTests", dependencies: ["StoreSim", "StoreSimTestSupport"]),
    .testTarget(
      name: "StoreSimSessionTests", dependencies: ["StoreSim", "StoreSimSession", "StoreSimTestSupport"]),
    .testTarget(
      name: "StoreSimHTTPTests", dependencies: ["StoreSimHTTP", "StoreSimSync", "StoreSimHTTPTestSupport"]),
    .testTarget(
      name: "StoreSimServerTests",
      dependencies: [
        "StoreSim", "StoreSimSession", "StoreSimHTTP", "StoreSimServer", "StoreSimSync", "StoreSimTestSupport",
        "StoreSimHTTPTestSupport", "StoreSimServerTestSupport",
      ]),
    .testTarget(
      name: "StoreSimCLITests",
      dependencies: [
        "StoreSim", "StoreSimSync", "StoreSimSession", "StoreSimHTTP", "StoreSimServer", "StoreSimCLI",
        "StoreSimTestSupport", "StoreSimHTTPTestSupport", "StoreSimServerTestSupport",
      ],
      exclude: ["Golden"]
    ),
    .testTarget(
      name: "StoreSimKitTests",
      dependencies: ["StoreSim", "StoreSimSync", "StoreSimKit", "StoreSimKitTesting"]),
  ]
)
