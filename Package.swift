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
    // Mutex and Condition: locks that own the state they guard, and WaitClock, the monotonic time
    // lock waits are measured on (for every module that shares state between threads).
    .target(name: "StoreSimSync"),
    // ProcessSignals: the one owner of the process's signal handlers.
    .target(name: "StoreSimSignals", dependencies: ["StoreSimSync"]),
    // P-256 (field, curve, ECDSA), DER, X.509, PEM, SHA-256/384, compact JWS, and the signing
    // chain a root key makes, with its memo (the lock the core does not take).
    .target(name: "StoreSimCrypto", dependencies: ["StoreSimSync"]),
    // The pure core: configuration, state, engine, virtual clock, Apple's wire shapes.
    .target(name: "StoreSim", dependencies: ["StoreSimCrypto"]),
    // The session file: its codec, integrity, atomic saves and locking.
    .target(name: "StoreSimSession", dependencies: ["StoreSim", "StoreSimSignals", "StoreSimSync"]),
    // HTTP/1.1 server and client on POSIX sockets; knows nothing of StoreKit.
    .target(name: "StoreSimHTTP", dependencies: ["StoreSimSignals", "StoreSimSync"]),
    // The App Store Server API as a route table, and notification delivery.
    .target(
      name: "StoreSimServer",
      dependencies: ["StoreSim", "StoreSimCrypto", "StoreSimSession", "StoreSimHTTP", "StoreSimSync"]),
    // The command line: commands, scenarios, the shell, the terminal.
    .target(
      name: "StoreSimCLI",
      dependencies: [
        "StoreSim", "StoreSimCrypto", "StoreSimSession", "StoreSimHTTP", "StoreSimServer", "StoreSimSignals",
        "StoreSimSync",
      ]),
    // StoreKit 2's API over a session.
    .target(name: "StoreSimKit", dependencies: ["StoreSim", "StoreSimCrypto", "StoreSimSession", "StoreSimSync"]),
    // The Swift Testing trait that gives each test its own StoreSimKit device.
    .target(name: "StoreSimKitTesting", dependencies: ["StoreSimKit"]),
    // StoreSimKit under Apple's module names, for code that says `import StoreKit` unchanged.
    .target(name: "StoreKit", dependencies: ["StoreSimKit"]),
    .target(name: "StoreKitTest", dependencies: ["StoreKit"]),
    .executableTarget(name: "storesim", dependencies: ["StoreSimCLI", "StoreSimSignals"]),
    // Times the library for Scripts/bench.sh; outside Sources/, as it ships in no product.
    .executableTarget(
      name: "storesim-bench", dependencies: ["StoreSim", "StoreSimCrypto", "StoreSimSession"],
      path: "Benchmarks/storesim-bench"),
    // Test helpers (regular targets under Tests/, never shipped): the core's fixture catalogue and
    // the project root; a tiny HTTP peer and a blocking client for the HTTP and server tests.
    .target(
      name: "StoreSimTestSupport", dependencies: ["StoreSim", "StoreSimCrypto"], path: "Tests/StoreSimTestSupport"),
    .target(
      name: "StoreSimHTTPTestSupport", dependencies: ["StoreSimHTTP", "StoreSimSync"],
      path: "Tests/StoreSimHTTPTestSupport"),
    // The App Store Server API called as a pure function, for the server's and the CLI's tests.
    .target(
      name: "StoreSimServerTestSupport",
      dependencies: ["StoreSim", "StoreSimCrypto", "StoreSimHTTP", "StoreSimServer", "StoreSimTestSupport"],
      path: "Tests/StoreSimServerTestSupport"),
    // One test target per module, each testing its module through its own API (docs/tests.md).
    .testTarget(name: "StoreSimSyncTests", dependencies: ["StoreSimSync"]),
    .testTarget(name: "StoreSimSignalsTests", dependencies: ["StoreSimSignals", "StoreSimSync"]),
    .testTarget(name: "StoreSimCryptoTests", dependencies: ["StoreSimCrypto"]),
    .testTarget(name: "StoreSimCoreTests", dependencies: ["StoreSim", "StoreSimCrypto", "StoreSimTestSupport"]),
    .testTarget(
      name: "StoreSimSessionTests", dependencies: ["StoreSim", "StoreSimSession", "StoreSimTestSupport"]),
    .testTarget(
      name: "StoreSimHTTPTests", dependencies: ["StoreSimHTTP", "StoreSimSync", "StoreSimHTTPTestSupport"]),
    .testTarget(
      name: "StoreSimServerTests",
      dependencies: [
        "StoreSim", "StoreSimCrypto", "StoreSimSession", "StoreSimHTTP", "StoreSimServer", "StoreSimSignals",
        "StoreSimSync", "StoreSimTestSupport", "StoreSimHTTPTestSupport", "StoreSimServerTestSupport",
      ]),
    .testTarget(
      name: "StoreSimCLITests",
      dependencies: [
        "StoreSim", "StoreSimCrypto", "StoreSimSignals", "StoreSimSync", "StoreSimSession", "StoreSimHTTP",
        "StoreSimServer", "StoreSimCLI", "StoreSimTestSupport", "StoreSimHTTPTestSupport", "StoreSimServerTestSupport",
      ],
      exclude: ["Golden"]
    ),
    .testTarget(
      name: "StoreSimKitTests",
      dependencies: ["StoreSim", "StoreSimCrypto", "StoreSimSync", "StoreSimKit", "StoreSimKitTesting"]),
  ]
)
